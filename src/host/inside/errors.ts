// Refusals of stepping inside a task: one class per kind, a stable code and the hint of what to
// do instead.
import { WardenError } from "../../protocol/index.js";

/** exec, shell or cp on a task whose settings do not allow it. */
export class InsideNotAllowedError extends WardenError {
  static override readonly hint =
    "create the task with --allow-exec (or --debug) to step inside it; a task's settings never change";
  readonly code: string = "INSIDE_NOT_ALLOWED";
  readonly exitClass = "operational";
}

/** exec, shell, cp or stop on a task whose sandbox is not running, or not serving yet. */
export class InsideNotServingError extends WardenError {
  static override readonly hint =
    "a task is open to exec, shell and cp while it runs (and with --debug until `warden stop`); see `warden show`";
  readonly code: string = "INSIDE_NOT_SERVING";
  readonly exitClass = "operational";
}

/** A session the sandbox refused or could not run (a bad path, a command that is not there). */
export class InsideSessionError extends WardenError {
  static override readonly hint = "see what the task did with `warden logs` and `warden show`";
  readonly code: string = "INSIDE_SESSION";
  readonly exitClass = "operational";
}

/** A `cp` path that names no place in the workspace, or a local file cp does not take. */
export class InsideCopyPathError extends WardenError {
  static override readonly hint =
    "name a regular file: ID:PATH with PATH relative to the task's repository, no `..`";
  readonly code: string = "INSIDE_COPY_PATH";
  readonly exitClass = "usage";
}
