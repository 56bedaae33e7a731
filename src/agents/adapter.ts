// What the runner needs from an agent to start it. Kept to the three things every agent has,
// so a new agent (Claude Code, Codex CLI, Gemini CLI) is one more adapter and no runner change.
import type { AgentName, Settings } from "../protocol/index.js";

/** How to start one agent run: what to execute, what to add to its environment, its stdin. */
export interface AgentLaunch {
  /** The program and its arguments, never a shell string. */
  readonly argv: readonly [string, ...string[]];
  /**
   * Variables the agent needs on top of the runner's minimal environment. The runner's own
   * variables (the environment protocol, PATH, HOME) win over these.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Written to the agent's stdin, which is then closed. */
  readonly stdin: string;
}

/** The task as an adapter sees it. */
export interface AgentTask {
  readonly settings: Settings;
  readonly prompt: string;
}

/** One kind of agent. A pure description: the runner does all the starting and watching. */
export interface AgentAdapter {
  readonly name: AgentName;
  launch(task: AgentTask): AgentLaunch;
}
