// The names both ends of the contract agree on.

/** The files of the task share, which the host fills and the sandbox mounts read-only. */
export const SHARE_FILES = {
  /** The settings, as JSON. */
  settings: "task.json",
  /** What the task is to do, in words for the agent. */
  prompt: "prompt.md",
  /** A git bundle whose HEAD is the commit the task starts from. */
  input: "input.bundle",
  /**
   * In place of input.bundle: the start commit and the repository, bound read-only into the
   * sandbox, whose objects the workspace borrows (see historyInput.ts).
   */
  history: "history.json",
  /** The snapshot of a past setup (setupSnapshot.ts), when the host's cache had one for the task. */
  setup: "setup.tar",
  /**
   * Present only when the task binds further repositories (--workspace): where each one's
   * history is and which commit it starts from (see workspaces.ts).
   */
  workspaces: "workspaces.json",
  /**
   * A directory the host fills while the task runs: `messages/<n>/<name>`, the files sent with
   * message n, put there just before the message is handed to the runner.
   */
  messages: "messages",
} as const;

/**
 * A file sent with a message: one path segment of letters, digits, `.`, `_`, `-` and `+`, not
 * starting with a dot, so it cannot climb out of its directory, hide, or mean anything to a
 * shell or to git.
 */
export const MESSAGE_FILE_NAME = /^[A-Za-z0-9_+-][A-Za-z0-9._+-]*$/;

/** Where the runner puts the files sent with message n: `<workspace>/.warden-inbox/<n>/`. */
export const MESSAGE_FILES_DIR = ".warden-inbox";

/**
 * The files of the results archive. Every one but result.json may be missing when the task
 * failed before it made them; result.json always comes last.
 */
export const RESULT_FILES = {
  /** The agent's stdout. */
  transcript: "transcript.jsonl",
  /** The agent's stderr. */
  log: "agent.log",
  /** A git bundle of TASK_BRANCH from the base on; missing when the task changed nothing. */
  changes: "changes.bundle",
  /** The Result as JSON. */
  result: "result.json",
} as const;

export type ResultFileName = (typeof RESULT_FILES)[keyof typeof RESULT_FILES];

export const RESULT_FILE_NAMES: readonly ResultFileName[] = Object.values(RESULT_FILES);

/** The name of the task's own repository among its workspaces; no bound one may take it. */
export const MAIN_WORKSPACE = "main";

/** The branch the task works on and changes.bundle carries. */
export const TASK_BRANCH = "refs/heads/warden/task";

/** The short name of TASK_BRANCH, as `git switch` wants it. */
export const TASK_BRANCH_SHORT = "warden/task";

/**
 * A task id: a ULID in lowercase Crockford base32 (26 characters, no i, l, o or u). Ids sort by
 * creation time, and nothing else fits, so a malformed id is never taken for a task.
 */
export const TASK_ID = /^[0-7][0-9a-hjkmnp-tv-z]{25}$/;

/** How far work may be handed from agent to agent before it is refused. */
export const MAX_HOP = 8;

/** The environment protocol: set for every command an agent runs. */
export const ENV = {
  taskId: "WARDEN_TASK_ID",
  parentTaskId: "WARDEN_PARENT_TASK_ID",
  hop: "WARDEN_HOP",
  metadataUrl: "WARDEN_METADATA_URL",
  dataDir: "WARDEN_DATA_DIR",
} as const;

/**
 * Egress inside the sandbox: the host binds a directory of unix sockets into the sandbox and
 * names it in GUEST_SOCKETS_ENV; the runner listens on these loopback ports and forwards each
 * connection to the socket of the same name.
 */
export const GUEST_SOCKETS_ENV = "WARDEN_GUEST_SOCKETS";
export const EGRESS_SOCKETS = { proxy: "proxy.sock", relay: "relay.sock" } as const;
export const GUEST_PORTS = { proxy: 3128, relay: 3129 } as const;
