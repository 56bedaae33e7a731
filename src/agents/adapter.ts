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
  /**
   * Files the agent reads its configuration from, written by the runner before this run starts.
   * Every path is absolute and inside the task's `home`.
   */
  readonly files?: readonly AgentFile[];
  /**
   * Where the runner copies the task's skills (AgentTask.skills) before this run starts: the
   * folder the agent looks for its user's skills in, absolute and inside the task's `home`.
   */
  readonly skillsDir?: string;
}

/** A configuration file an agent needs (Gemini's settings.json, say). */
export interface AgentFile {
  readonly path: string;
  readonly text: string;
}

/** A further message for an agent that takes one by resuming its session in a new run. */
export interface AgentResume {
  /** The session to resume: the id of the last run's `session` event. */
  readonly sessionId: string;
  readonly message: string;
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
  /**
   * A writable directory of the task's own, outside the workspace, the same for every run of
   * the task: where an agent keeps its configuration and its sessions.
   */
  readonly home?: string;
  /**
   * The API relay's base URL on loopback (no path), when the host gave a relay: an agent whose
   * API address is not an environment variable the runner sets (Codex, Gemini) is pointed here.
   */
  readonly apiBaseUrl?: string;
  /** Present for a further run of a `resumable` agent: the message it carries. */
  readonly resume?: AgentResume;
  /**
   * The repositories bound beside the task's own (--workspace), as absolute paths in the
   * sandbox: an agent that confines its file tools to its working directory is told of them.
   */
  readonly addDirs?: readonly string[];
  /** The folder of the task's skills (one folder each), when it has some: the share's copy. */
  readonly skills?: string;
}

/** The agent's own account of how a run ended, as an event. */
export type AgentResultEvent = Extract<AgentEvent, { type: "result" }>;

/** How a run ended, for the result and the task's events. */
export interface AgentOutcome {
  /** Whether it succeeded, what bound stopped it, its turns and cost, its answer or error. */
  readonly result: AgentResultEvent;
  /**
   * What `result.agentResult` should hold: the agent's own last line, or, when the agent wrote
   * none that says how it ended, one the adapter synthesized (`synthesized`). Absent: keep none.
   */
  readonly agentResult?: Readonly<Record<string, unknown>>;
  /** The agent wrote no account of its own; `result` and `agentResult` are the adapter's. */
  readonly synthesized: boolean;
}

/** What the runner knows once the agent has exited. */
export interface AgentExit {
  /** The agent's last stdout line parsed as a JSON object (result.agentResult), if it was one. */
  readonly lastLine?: Readonly<Record<string, unknown>> | undefined;
  /** The exit code, or 128 + the signal number for an agent a signal ended. */
  readonly exitCode: number;
  /**
   * The last `result` event the run's stream reader gave, when the runner read the stream: it
   * can say more than the last line (the answer, the turns of every run of the task).
   */
  readonly lastResult?: AgentResultEvent;
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

/**
 * One kind of agent, for one task. A description: the runner does all the starting and
 * watching. An adapter may keep what the task's runs add up to (Codex's and Gemini's usage
 * across resumes), so each task gets its own (see adapterFor).
 */
export interface AgentAdapter {
  readonly name: AgentName;
  launch(task: AgentTask): AgentLaunch;
  /** A fresh reader for one run's stdout. */
  readStream(): StreamReader;
  /**
   * A fresh reader for one run's stderr, for an agent that says some things only there
   * (Gemini's retries). Its events join the stdout's.
   */
  readLog?(): StreamReader;
  /** How the run ended, from its last line, exit code and last result event. */
  outcome(exit: AgentExit): AgentOutcome;
  /** Present when the agent takes further messages on stdin while it runs (Claude Code). */
  readonly conversation?: AgentConversation;
  /**
   * True when the agent takes each further message as a new run that resumes its session
   * (Codex CLI, Gemini CLI): the runner starts one with `resume` set after a run that ended ok.
   */
  readonly resumable?: boolean;
  /**
   * Where the agent keeps its sessions, how a kept one goes back, and what its files look like:
   * what a checkpoint carries and a resume puts back. Absent: the agent's sessions are not kept,
   * and a resumed task starts a new one.
   */
  readonly sessions?: AgentSessions;
  /**
   * True when warden reads no events from the agent's output (a command): the runner sends its
   * stdout and stderr lines as `output` events while it runs, so that a watcher sees them.
   */
  readonly liveOutput?: boolean;
}

/**
 * Where the file of a session is: a path known from the session's id, or a search of one
 * directory (and those below it, to `depth` levels) for a regular file whose name begins with
 * `prefix` and ends with `suffix`, the most recently written one when several do.
 */
export type SessionFileSearch =
  | { readonly kind: "path"; readonly path: string }
  | {
      readonly kind: "search";
      readonly dir: string;
      readonly depth: number;
      readonly prefix: string;
      readonly suffix: string;
    };

/** Where a kept session file goes back, with the files the agent needs beside it to find it. */
export interface SessionPlacement {
  /** Absolute, inside the task's home. */
  readonly path: string;
  /** Absolute, inside the task's home; written before the session file. */
  readonly files: readonly AgentFile[];
}

/**
 * An agent's sessions as plans the runner carries out (find, place) and the check the host puts
 * a kept session file through. Every function is pure.
 */
export interface AgentSessions {
  /** Where session `sessionId`'s file is for a run in `cwd` with `home`; undefined: nowhere known. */
  find(home: string, cwd: string, sessionId: string): SessionFileSearch | undefined;
  /** Where a kept file of session `sessionId` goes so a resumed run in `cwd` finds it. */
  place(home: string, cwd: string, sessionId: string): SessionPlacement | undefined;
  /**
   * Checks one line of a session file of `sessionId` (parsed: a JSON object), the first being
   * line 0, against the shape the agent writes. Throws what is wrong.
   */
  checkLine(line: Readonly<Record<string, unknown>>, index: number, sessionId: string): void;
}
