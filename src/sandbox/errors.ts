// The errors a sandbox backend raises on purpose, each with a stable code and a hint.
import { WardenError } from "../protocol/index.js";

/**
 * A backend that cannot run on this machine: its tool is missing, too old, or the kernel refuses
 * what it needs. warden never falls back to less isolation: the hint says what to install or fix.
 */
export class SandboxUnavailableError extends WardenError {
  readonly code: string = "SANDBOX_UNAVAILABLE";
  readonly exitClass = "operational";
}

/** A request that no backend may run: a relative path, a bind that would expose the host home. */
export class BadSandboxRequestError extends WardenError {
  readonly code: string = "BAD_SANDBOX_REQUEST";
  readonly exitClass = "usage";
}

/** A backend that works on this machine but could not start this one sandbox. */
export class SandboxStartError extends WardenError {
  readonly code: string = "SANDBOX_START_FAILED";
  readonly exitClass = "operational";
}

/** A sandbox uid or gid that cannot be used: root's, malformed, or one warden cannot switch to. */
export class BadSandboxIdentityError extends WardenError {
  readonly code: string = "BAD_SANDBOX_IDENTITY";
  readonly exitClass = "operational";
}

/** A bound in force (a default or one asked for) that this machine cannot apply. */
export class BoundUnavailableError extends WardenError {
  readonly code: string = "BOUND_UNAVAILABLE";
  readonly exitClass = "operational";
}
