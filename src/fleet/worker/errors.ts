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

/** A second worker on a data directory whose worker directory another worker holds. */
export class WorkerBusyError extends WardenError {
  static override readonly hint =
    "give each worker on this machine its own --data-dir, or stop the other worker";
  readonly code: string = "WORKER_BUSY";
  readonly exitClass = "operational";
}
