// The worker's own refusals. A task's base bundle is written by a client, another machine: the
// worker takes it as hostile input, like a bundle from a sandbox.
import { WardenError } from "../../protocol/index.js";

/** A base bundle that is not a bundle of exactly the spec's base commit. */
export class BadBaseBundleError extends WardenError {
  static override readonly hint =
    "the client that made the task uploaded a base warden does not take; run the task again from its repository";
  readonly code: string = "FLEET_BAD_BASE";
  readonly exitClass = "operational";
}

/** A `--label` that is not NAME=VALUE with a label's name and value. */
export class BadWorkerLabelError extends WardenError {
  static override readonly hint =
    "write each label as NAME=VALUE: letters, digits, . _ - in the name, at most 256 bytes of value";
  readonly code: string = "BAD_LABEL";
  readonly exitClass = "usage";
}

/** A second worker on a data directory whose worker directory another worker holds. */
export class WorkerBusyError extends WardenError {
  static override readonly hint =
    "give each worker on this machine its own --data-dir, or stop the other worker";
  readonly code: string = "WORKER_BUSY";
  readonly exitClass = "operational";
}
