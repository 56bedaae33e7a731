// Whether a task's agent reads the messages `warden send` puts in its inbox. Claude Code takes
// them on stdin while it runs, Codex CLI and Gemini CLI as a run that resumes the session; a
// `command` agent has no way to receive one, so a message to it is refused, never kept unread.
import { adapterFor } from "../agents/index.js";
import { AGENTS, type AgentName } from "../protocol/index.js";
import { MessagesNotTakenError, NotAHostTaskError } from "./errors.js";
import { readHostSettings } from "./hostSettings.js";

/** Whether the runner hands further messages to this agent (see AgentAdapter). */
export function agentTakesMessages(agent: AgentName): boolean {
  const adapter = adapterFor(agent);
  return adapter.conversation !== undefined || adapter.resumable === true;
}

/**
 * Refuses a message to task `id` (whose spec holds `settings`) when its agent takes none. A task
 * the host did not make is left to the store's own checks: its agent is not the host's to know.
 */
export function checkTakesMessages(id: string, settings: Record<string, unknown>): void {
  let agent: AgentName;
  try {
    agent = readHostSettings(id, settings).guest.agent;
  } catch (error) {
    if (error instanceof NotAHostTaskError) return;
    throw error;
  }
  if (agentTakesMessages(agent)) return;
  const takers = AGENTS.filter(agentTakesMessages).map((name) => `\`${name}\``);
  throw new MessagesNotTakenError(
    `task ${id} has the \`${agent}\` agent, which takes no messages`,
    {
      hint:
        `messages reach the agents ${takers.slice(0, -1).join(", ")} and ${takers.at(-1) ?? ""}; ` +
        `a \`${agent}\` agent reads only its ` +
        "prompt, so put what it needs there and run a new task",
    },
  );
}
