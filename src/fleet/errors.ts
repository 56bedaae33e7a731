// The fleet store's own refusals; every rule it shares with the filesystem store raises the
// store's errors, so a caller handles both stores alike.
import { WardenError } from "../protocol/index.js";

/** A holder whose lease was reaped or taken by a newer attach: it may write nothing more. */
export class LeaseLostError extends WardenError {
  static override readonly hint =
    "the task is run by a newer attach now; this run's work is not recorded";
  readonly code: string = "LEASE_LOST";
  readonly exitClass = "operational";
}

/** A compare-and-set that kept losing: the record is written by too many at once. */
export class FleetContentionError extends WardenError {
  static override readonly hint = "try again; if it persists, look for a runaway writer";
  readonly code: string = "FLEET_CONTENTION";
  readonly exitClass = "operational";
}
