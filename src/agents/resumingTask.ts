// What an agent that takes each further message as a new run of its session (Codex CLI, Gemini
// CLI) needs of every task, whatever else its own launch takes.
import { definedFields } from "../lang/index.js";
import type { AgentResume, AgentTask } from "./adapter.js";

export interface ResumingTask {
  /** The task's prompt: the first run's message. */
  readonly prompt: string;
  readonly model?: string;
  /** The agent's program inside the sandbox, an absolute path; absent: its usual name on PATH. */
  readonly agentProgram?: string;
  /** Present for a further message: the session to resume (from the `session` event) and it. */
  readonly resume?: AgentResume;
}

/** The part of a warden task every resuming agent takes, without the fields it leaves unset. Pure. */
export function resumingTaskOf(task: AgentTask): ResumingTask {
  return definedFields({
    prompt: task.prompt,
    model: task.settings.model,
    agentProgram: task.settings.agentProgram,
    resume: task.resume,
  });
}
