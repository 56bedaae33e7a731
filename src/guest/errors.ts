// The ways the runner fails, each with a stable code. Their messages end up in result.json,
// where the host cleans them again before it shows them.
import { WardenError, type WardenErrorOptions } from "../protocol/index.js";

/** A runner command line it cannot act on (it exits 2), and a git command of its own that failed. */
export { UsageError, GitError } from "../protocol/index.js";

/** A git step did not finish within its deadline. */
export class GitDeadlineError extends WardenError {
  static override readonly hint = "the repository may be too large for the sandbox's disk or CPU";
  readonly code: string = "GIT_DEADLINE";
  readonly exitClass = "operational";
}

/** The branch the agent left does not descend from the commit the task started from. */
export class HistoryRewrittenError extends WardenError {
  static override readonly hint =
    "the agent must add commits on top of the start commit, not rewrite it";
  readonly code: string = "HISTORY_REWRITTEN";
  readonly exitClass = "operational";
}

/** The bundle of changes is over its limit, or is not one the host would take. */
export class BadChangesError extends WardenError {
  readonly code: string = "BAD_CHANGES";
  readonly exitClass = "operational";
}

/** The agent's command could not be started at all. */
export class AgentStartError extends WardenError {
  static override readonly hint =
    "check that the agent's program exists inside the sandbox and is executable";
  readonly code: string = "AGENT_START";
  readonly exitClass = "operational";
}

/** The runner was asked to stop (SIGTERM or SIGINT) before the task was done. */
export class StoppedError extends WardenError {
  readonly code: string = "STOPPED";
  readonly exitClass = "operational";
}

/** The channel to the host could not be opened, broke, or was answered with something else. */
export class HostChannelError extends WardenError {
  static override readonly hint =
    "the agent runs on without the host: no live events, messages or approvals";
  readonly code: string = "HOST_CHANNEL";
  readonly exitClass = "operational";
}

/** The host answered a request on the channel with an error; the channel itself still works. */
export class ChannelRefusedError extends WardenError {
  readonly code: string = "CHANNEL_REFUSED";
  readonly exitClass = "operational";
  /** The host's stable code (rate_limited, finished, ...). */
  readonly refusal: string;
  constructor(message: string, options: WardenErrorOptions & { refusal: string }) {
    super(message, options);
    this.refusal = options.refusal;
  }
}

/** A setup command exited non-zero, or the setup goal's agent run failed. */
export class SetupFailedError extends WardenError {
  static override readonly hint =
    "see the setup's output with `warden logs ID --setup-log`; fix the setup and run the task again";
  readonly code: string = "SETUP_FAILED";
  readonly exitClass = "operational";
}

/** The setup ran past its time limit and was stopped. */
export class SetupTimeoutError extends WardenError {
  static override readonly hint =
    "give setup more time with --setup-timeout (or setupTimeout in .warden/config.yaml)";
  readonly code: string = "SETUP_TIMEOUT";
  readonly exitClass = "operational";
}

/** A `cp` path that leads out of the workspace, through a link, or to something not a file. */
export class InsidePathError extends WardenError {
  static override readonly hint = "name a regular file by its path inside the workspace";
  readonly code: string = "INSIDE_PATH";
  readonly exitClass = "usage";
}

/** The share's checkpoint could not be put into the workspace. */
export class CheckpointRestoreError extends WardenError {
  static override readonly hint =
    "the task's checkpoint may be damaged; `warden rerun` runs the task again from its start";
  readonly code: string = "CHECKPOINT_RESTORE";
  readonly exitClass = "operational";
}
