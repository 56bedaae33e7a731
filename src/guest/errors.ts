// The ways the runner fails, each with a stable code. Their messages end up in result.json,
// where the host cleans them again before it shows them.
import { WardenError, type WardenErrorOptions } from "../protocol/index.js";

/** A command line or environment the runner does not understand. It exits 2 without running. */
export class UsageError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("USAGE", message, { hint: "run warden-guest --help", ...options });
  }
}

/** A git command the runner ran failed. */
export class GitError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("GIT_FAILED", message, options);
  }
}

/** A git step did not finish within its deadline. */
export class GitDeadlineError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("GIT_DEADLINE", message, {
      hint: "the repository may be too large for the sandbox's disk or CPU",
      ...options,
    });
  }
}

/** The branch the agent left does not descend from the commit the task started from. */
export class HistoryRewrittenError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("HISTORY_REWRITTEN", message, {
      hint: "the agent must add commits on top of the start commit, not rewrite it",
      ...options,
    });
  }
}

/** The bundle of changes is over its limit, or is not one the host would take. */
export class BadChangesError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_CHANGES", message, options);
  }
}

/** The agent's command could not be started at all. */
export class AgentStartError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("AGENT_START", message, {
      hint: "check that the agent's program exists inside the sandbox and is executable",
      ...options,
    });
  }
}

/** The runner was asked to stop (SIGTERM or SIGINT) before the task was done. */
export class StoppedError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("STOPPED", message, options);
  }
}

/** The channel to the host could not be opened, broke, or was answered with something else. */
export class HostChannelError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("HOST_CHANNEL", message, {
      hint: "the agent runs on without the host: no live events, messages or approvals",
      ...options,
    });
  }
}

/** The host answered a request on the channel with an error; the channel itself still works. */
export class ChannelRefusedError extends WardenError {
  constructor(
    /** The host's stable code (rate_limited, finished, ...). */
    readonly refusal: string,
    message: string,
    options: WardenErrorOptions = {},
  ) {
    super("CHANNEL_REFUSED", message, options);
  }
}
