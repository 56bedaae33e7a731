// What the runner needs from an agent: how to start it, how to read what it writes, how it
// ended, and (for agents that take them) how to give it one more message while it runs. A new
// agent (Claude Code, Codex CLI, Gemini CLI) is one more adapter and no runner change.
import type { AgentName, Settings } from "../protocol/index.js";
import type { AgentEvent, StreamReader } from "./agentEvent.js";

/** How to start one agent run: what to execute, what to add to its environment, its stdin. */
export interface AgentLaunch {
  /** The program and its arguments, never a shell string. */
  readonly argv: readonly [string, ...string[]];
  /**
   * Variables the agent needs on top of the runner's minimal environment. The runner's own
   * variables (the environment protocol, PATH, HOME) win over these.
   */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Written to the agent's stdin first. Closing stdin right after it is always allowed; an
   * adapter with `conversation` lets the runner keep stdin open for further messages instead.
   */
  readonly stdin: string;
}

/**
 * A permission prompt tool the runner offers the agent, for `approve: "prompt"`: an MCP server
 * config (JSON, as Claude Code's `--mcp-config` takes it) and the tool's full name
 * (`mcp__<server>__<tool>`).
 */
export interface PermissionPromptTool {
  readonly mcpConfig: string;
  readonly tool: string;
}

/** The task as an adapter sees it. */
export interface AgentTask {
  readonly settings: Settings;
  readonly prompt: string;
  /** Present when the runner can ask the host about permission prompts. */
  readonly permissionPromptTool?: PermissionPromptTool;
}

/** The agent's own account of how a run ended, as an event. */
export type AgentResultEvent = Extract<AgentEvent, { type: "result" }>;

/** How a run ended, for the result and the task's events. */
export interface AgentOutcome {
  /** Whether it succeeded, what bound stopped it, its turns and cost, its answer or error. */
  readonly result: AgentResultEvent;
  /**
   * What `result.agentResult` should hold: the agent's own last line, or, when the agent wrote
   * none that says how it ended, one the adapter made up (`madeUp`). Absent: keep none.
   */
  readonly agentResult?: Readonly<Record<string, unknown>>;
  /** The agent wrote no account of its own; `result` and `agentResult` are the adapter's. */
  readonly madeUp: boolean;
}

/** What the runner knows once the agent has exited. */
export interface AgentExit {
  /** The agent's last stdout line parsed as a JSON object (result.agentResult), if it was one. */
  readonly lastLine: Readonly<Record<string, unknown>> | undefined;
  /** The exit code, or 128 + the signal number for an agent a signal ended. */
  readonly exitCode: number;
}

/**
 * How to give a running agent one more user message on its stdin. The runner writes one line
 * at a turn boundary (a `result` event), waits for that message's own `result` before it
 * writes the next, and closes stdin to end the run: the agent waits for more until then.
 */
export interface AgentConversation {
  /** The stdin line (newline included) that carries `text` as the next user message. */
  userMessageLine(text: string): string;
}

/** One kind of agent. A pure description: the runner does all the starting and watching. */
export interface AgentAdapter {
  readonly name: AgentName;
  launch(task: AgentTask): AgentLaunch;
  /** A fresh reader for one run's stdout. */
  readStream(): StreamReader;
  /** Pure: how the run ended, from its last line and exit code. */
  outcome(exit: AgentExit): AgentOutcome;
  /** Present when the agent takes further messages on stdin while it runs. */
  readonly conversation?: AgentConversation;
}
