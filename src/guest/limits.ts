// The runner's own bounds on its side of the channel to the host (src/protocol/channel.ts holds
// the wire's). Each says what the runner gives up, never what the agent must wait for: the agent
// runs on whatever the host does.

export const GUEST_CHANNEL_LIMITS = {
  /** The socket is local; a host that does not accept within this is not there. */
  connectMs: 5_000,
  /**
   * Every request but approval.ask is a small file operation on the host. One that takes longer
   * than this breaks the channel: answers come in order, so a late one could not be matched.
   * approval.ask has no timeout here: a person decides, and the host's own prompt timeout ends it.
   */
  requestMs: 10_000,
  /** The longest request timeout a flag may ask for: past this a host is gone, not slow. */
  maxRequestMs: 10 * 60_000,
  /** Events that arrive within this of each other go in one request. */
  coalesceMs: 50,
  /**
   * Events waiting to be sent, plus those sent and not yet answered. Past this, new events are
   * dropped and counted, so a slow host never makes the runner hold the agent's output. A result
   * event is always kept: there is one per message, at most 17 in a run.
   */
  pendingEvents: 4096,
  /**
   * Lines of a command's output sent as `output` events, a second on average, and at most this
   * many at once after a quiet spell. A watcher reads far fewer than that; a flood past it is
   * counted, never queued, so it costs the host nothing and never crowds out other events.
   */
  outputLinesPerSecond: 50,
  outputLineBurst: 200,
  /**
   * A line the agent has begun and not ended (a prompt, `working...`) is sent as it is after
   * this long without a newline, so a watcher is not left waiting for the newline.
   */
  partialLineMs: 500,
  /** Events requests on the wire at once; more events wait and go in bigger batches. */
  eventRequestsInFlight: 2,
  /** Once the agent has exited: how long the last events may take to reach the host. */
  flushMs: 5_000,
  /** A line Claude Code writes to the permission tool (JSON-RPC): a tool call with its input. */
  mcpLineBytes: 8 * 1024 * 1024,
} as const;

/** The runner's bounds on the setup step (the wire's are SETUP_LIMITS in src/protocol). */
export const GUEST_SETUP_LIMITS = {
  /** Lines of setup output kept for the error of a failed setup: what a person reads first. */
  tailLines: 20,
  /** Bytes of those lines: the error lands in result.json, whose texts are 16 KiB at most. */
  tailBytes: 4 * 1024,
  /** Output lines sent to the host in all: past this they are counted, not sent. */
  outputLines: 20_000,
  /** Lines waiting to be sent within this go in one request. */
  coalesceMs: 100,
  /** Between SIGTERM to a timed-out setup command's group and SIGKILL. */
  killGraceMs: 2_000,
  /** git status's list of what setup changed: a directory it ignores is one line, not its files. */
  statusBytes: 16 * 1024 * 1024,
  /** How long the end of a setup command's output may take once its process has exited. */
  drainMs: 1_000,
} as const;

/** The runner's bounds on the sessions a person opens inside (the wire's are INSIDE_LIMITS). */
export const GUEST_INSIDE_LIMITS = {
  /** Between tries to open the idle connection when the host refused or dropped one. */
  reconnectMs: 1_000,
  /** Between SIGTERM to a session's process group, when its connection ends, and SIGKILL. */
  killGraceMs: 2_000,
  /** Bytes of a command's output waiting for the host before the command's pipes are paused. */
  unsentBytes: 1024 * 1024,
} as const;

/** The runner's bounds on its checkpoints (the wire's are CHECKPOINT_LIMITS in src/protocol). */
export const GUEST_CHECKPOINT_LIMITS = {
  /**
   * The share of the agent's time checkpoints may take: after one that took t, the next waits
   * until the checkpoints' total is at most this share of the time since the agent started, so
   * a slow checkpoint of a big workspace never takes more than a tenth of the task's time.
   */
  timeShare: 0.1,
  /** Between two checkpoints at least this, however cheap: turn boundaries can come in bursts. */
  minIntervalMs: 1_000,
  /**
   * A turn boundary's checkpoint waits at least this: an agent's last boundary comes moments
   * before it exits, and the checkpoint of its end (taken at once) then holds everything, where
   * one begun at the boundary would be waited for and then taken again. A kill in this moment
   * loses at most the turn that just ended, which the checkpoint before it does not hold.
   */
  boundaryDelayMs: 300,
  /**
   * Once the runner has closed an agent's input (its conversation is over), a checkpoint not yet
   * begun waits this long: the agent is about to exit, and its last checkpoint is taken then, at
   * once, from what finishing makes. One that began in the agent's own slow exit would walk the
   * workspace for nothing. Should the agent not exit, this still checkpoints its end.
   */
  endingGraceMs: 5_000,
  /** A command agent has no turns: its workspace is checkpointed on this timer instead. */
  commandIntervalMs: 60_000,
  /** One checkpoint's git work; past this it is given up, and the next boundary tries again. */
  gitMs: 2 * 60_000,
  /** Once the agent has exited, how long its last checkpoint may take to reach the host. */
  finalMs: 60_000,
  /**
   * Directory entries looked at in a search for the agent's session file. The agent's home holds
   * its own files only, a few per session; past this the search gives up and the checkpoint
   * carries no session, so an agent that fills its home cannot make every boundary slow.
   */
  sessionSearchEntries: 10_000,
} as const;
