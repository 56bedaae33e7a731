// Every time bound and size the host applies while it runs a task, in one place, with the reason.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const MiB = 1024 * 1024;

export const HOST_LIMITS = {
  /**
   * The runner gives each of its two git steps (the clone before the agent; the leftovers
   * commit and the bundle after it) a deadline of 10 minutes, so the host allows as much.
   */
  gitStepMs: 10 * MINUTE,
  /** The runner's grace between SIGTERM and SIGKILL of the agent at its timeout. */
  agentKillGraceMs: 10 * SECOND,
  /** Starting the sandbox and streaming the archive: seconds at most; a minute is generous. */
  startAndSendMs: 1 * MINUTE,
  /**
   * From SIGTERM to the runner until everything in the sandbox is SIGKILLed: the agent's own
   * grace, then the leftovers commit, the bundle and the archive of what there is.
   */
  stopGraceMs: 30 * SECOND,
  /** A runner whose results the host refused is hostile or broken: it gets no grace at all. */
  refusedGraceMs: 0,
  /**
   * After the sandbox has exited, how long its stdout and stderr may stay open. Nothing of the
   * sandbox runs any more, so an open pipe is a process that escaped it; it is not waited for.
   */
  drainAfterExitMs: 5 * SECOND,
  /**
   * Progress events one attach appends to events.jsonl. Watchers want a live feed, not the
   * whole log (that is results/guest.log), and the events file has its own 32 MiB bound.
   */
  progressEvents: 2000,
  /**
   * The runner's phases kept from its trace line when an attach is traced: it times a few dozen
   * steps, so more than this is a runner that is not warden's.
   */
  guestTracePhases: 500,
  /** The longest name of a runner's phase kept; warden's own are a few words. */
  guestTraceNameChars: 120,
  /** results/guest.log: the guest's cleaned stderr; a flood past this is dropped. */
  guestLogBytes: 16 * MiB,
  /** How often the executor looks for a cancel request and the time when no notification came. */
  stopPollMs: 250,
  /**
   * Agent events one attach records from the channel. A long run has a few thousand (turns,
   * tool calls, usage); the whole stream is in results/transcript.jsonl, so past this the
   * events only say that the rest were dropped.
   */
  agentEvents: 20_000,
  /**
   * Output lines of a command agent one attach records as events (and writes to guest.log). The
   * runner sends at most 50 a second; past this a watcher has seen the start of a flood, and
   * the whole output is in results/transcript.jsonl and results/agent.log.
   */
  outputEvents: 5000,
  /**
   * How long a permission prompt waits for a person (`warden approve`) before it is denied,
   * unless the task says otherwise: long enough to notice and answer, short enough that an
   * agent nobody watches does not sit idle until its deadline.
   */
  approvalTimeoutMs: 10 * MINUTE,
  /**
   * Approval events (asked, answered) one attach records. An agent asks about one call at a
   * time; a runner that asks thousands of times is flooding, and the rest are only counted.
   */
  approvalEvents: 2000,
  /** The longest a task may set for it: a day; its deadline bounds it anyway. */
  maxApprovalTimeoutMs: 24 * 60 * MINUTE,
  /**
   * Problems git's strict object check found that one refusal names. git stops at the first bad
   * object, but one object (or the .gitmodules files it checks last) can have several; the rest
   * are counted, so the task's error stays a line a person reads.
   */
  objectProblemsNamed: 5,
  /**
   * Bytes of git's own description of one problem that a refusal quotes. It can quote the
   * sandbox's text (a .gitmodules URL), which the user needs to recognise, not to read whole.
   */
  objectProblemBytes: 200,
  /**
   * How long a task waits for another to finish updating the repository's history cache: as
   * long as the first fill of a large history may take, which is a git step on the host.
   */
  historyLockWaitMs: 10 * MINUTE,
  /** How often a task waiting for the history cache's lock tries it again. */
  historyLockPollMs: 50,
  /**
   * The most a kept sandbox check may hold (sandboxChecks.ts): its key and the check's one-line
   * detail are a few hundred bytes; a larger file is not one warden wrote, and is not read.
   */
  keptCheckBytes: 64 * 1024,
  /**
   * Files and directories a history cache may hold. Each base adds a pack, its index and a
   * tag; a cache past this is not one warden made, and is rebuilt rather than walked further.
   */
  historyCacheEntries: 200_000,
  /**
   * One --mcp-config file: a few servers' commands, URLs and variables. Larger is not an MCP
   * config, and is not parsed; all the servers together are bounded again in task.json.
   */
  mcpConfigFileBytes: 64 * 1024,
  /** --mcp-config files of one task: each adds servers to one set that MCP_LIMITS bounds. */
  mcpConfigFiles: 16,
  /**
   * A usage limit that resets sooner than this is left to the agent's own retries: suspending
   * costs a sandbox's stop and start, more than a few seconds' wait.
   */
  usageLimitMinWaitMs: 5 * SECOND,
  /**
   * A usage limit's reset is waited past by this much before the task resumes: clocks differ
   * between the API and this host, and a resume a moment early would meet the limit again.
   */
  usageLimitMarginMs: 1 * SECOND,
  /**
   * A suspension at a turn boundary waits this long for the runner's checkpoint of that
   * boundary before it stops the sandbox anyway: a checkpoint of a large workspace may take
   * seconds, but a runner that sends none must not keep the task from suspending.
   */
  suspendCheckpointWaitMs: 30 * SECOND,
  /**
   * How long a usage limit's suspension waits to hear of a turn boundary the agent passed just
   * before the refused request: the relay sees the answer at once, but the agent's events come
   * over the channel in batches (tens of ms apart), so the boundary's event may come after it.
   * Heard of one, the suspension waits for its checkpoint; else it stops the sandbox then.
   */
  usageLimitSettleMs: 1 * SECOND,
} as const;

/**
 * The host's own limit for one attach of a task whose agent has `timeoutSeconds` (0: none):
 * the agent's time and its kill grace, both git steps, and the start and the archive. The
 * runner enforces the agent's timeout itself; this bound is for a runner that does not.
 * Undefined when the task has no timeout: then only its deadline bounds it.
 */
export function hostLimitMs(timeoutSeconds: number | undefined): number | undefined {
  if (timeoutSeconds === undefined || timeoutSeconds <= 0) return undefined;
  return (
    timeoutSeconds * SECOND +
    HOST_LIMITS.agentKillGraceMs +
    2 * HOST_LIMITS.gitStepMs +
    HOST_LIMITS.startAndSendMs
  );
}

/** The host's bounds on a task's setup step while it runs (the cache's are in setupCache/). */
export const SETUP_PHASE_LIMITS = {
  /** results/setup.log: the setup's output for a person, cut past this like agent.log. */
  logBytes: 1 * MiB,
  /** setup_output events one attach records; the log keeps what a watcher is not shown. */
  outputEvents: 500,
  /**
   * Beyond the setup's own time limit, how long the host still counts the sandbox as in setup:
   * the runner's kill grace and the snapshot's sending. Then the host ends setup itself.
   */
  graceMs: 2 * MINUTE,
} as const;
