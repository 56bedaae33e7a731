// The CLI's own refusals: a command line it cannot act on (exit 2), a file that is not there
// yet (exit 1), and a task nobody runs to wait on (exit 4).
import { WardenError } from "../protocol/index.js";

export { UsageError } from "../protocol/index.js";

/** A log or result the task has not made (yet). */
export class NothingToShowError extends WardenError {
  readonly code: string = "NOTHING_TO_SHOW";
  readonly exitClass = "operational";
}

/**
 * `wait` or `watch` of a task that nobody runs: it is created, or its runner died (interrupted),
 * so it would never end by itself. Its own exit status (4) tells a script it may still be started.
 */
export class TaskNotRunningError extends WardenError {
  readonly code: string = "TASK_NOT_RUNNING";
  readonly exitClass = "not_running";
}

/** A background run (`warden start` in its own process) ended before it took its task. */
export class BackgroundRunError extends WardenError {
  readonly code: string = "BACKGROUND_RUN_FAILED";
  readonly exitClass = "operational";
}

/** A store address that is neither `local` nor a nats:// or tls:// URL. */
export class BadStoreError extends WardenError {
  static override readonly hint =
    "name the fleet as nats://HOST:PORT (or tls://), or `local` for this machine's tasks";
  readonly code: string = "BAD_STORE";
  readonly exitClass = "usage";
}

/** A verb that needs the task's directory on this machine, asked of a fleet's store. */
export class LocalOnlyVerbError extends WardenError {
  static override readonly hint =
    "run it with --store local for this machine's tasks; a fleet's task is reached through its events, inbox and results";
  readonly code: string = "LOCAL_ONLY_VERB";
  readonly exitClass = "usage";
}
