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

/** The fleet's server could not be reached (nothing listens there, or it went away). */
export class FleetUnreachableError extends WardenError {
  static override readonly hint =
    "check the store's address (--store, WARDEN_STORE or store: in your config) and that its nats-server runs";
  readonly code: string = "FLEET_UNREACHABLE";
  readonly exitClass = "operational";
}

/** The fleet's server refused the credentials, or the user may not do what was asked. */
export class FleetAuthError extends WardenError {
  static override readonly hint =
    "check store.user and store.password, store.nkeySeedFile or store.credsFile in your config";
  readonly code: string = "FLEET_AUTH";
  readonly exitClass = "operational";
}

/**
 * A fleet task's changes that fail this client's own check against its repository: the
 * worker's verification is not taken on trust, and nothing of them reaches the repository.
 */
export class FleetChangesRefusedError extends WardenError {
  static override readonly hint =
    "the worker that ran the task sent changes this repository does not accept; run the task again";
  readonly code: string = "FLEET_CHANGES_REFUSED";
  readonly exitClass = "operational";
}
