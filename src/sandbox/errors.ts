// The errors a sandbox backend raises on purpose, each with a stable code and a hint.
import { WardenError, type WardenErrorOptions } from "../protocol/index.js";

/**
 * A backend that cannot run on this machine: its tool is missing, too old, or the kernel refuses
 * what it needs. warden never falls back to less isolation: the hint says what to install or fix.
 */
export class SandboxUnavailableError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("SANDBOX_UNAVAILABLE", message, options);
  }
}

/** A request that no backend may run: a relative path, a bind that would expose the host home. */
export class BadSandboxRequestError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_SANDBOX_REQUEST", message, options);
  }
}

/** A backend that works on this machine but could not start this one sandbox. */
export class SandboxStartError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("SANDBOX_START_FAILED", message, options);
  }
}

/** A sandbox uid or gid that cannot be used: root's, malformed, or one warden cannot switch to. */
export class BadSandboxIdentityError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_SANDBOX_IDENTITY", message, options);
  }
}

/** A bound in force (a default or one asked for) that this machine cannot apply. */
export class BoundUnavailableError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BOUND_UNAVAILABLE", message, options);
  }
}
