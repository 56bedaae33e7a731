// Errors are typed: a class per kind, a stable code, a message in the user's words and a hint.

export interface WardenErrorOptions {
  /** What the user can do about it. */
  hint?: string;
  cause?: unknown;
}

/** The root of every error warden raises on purpose. */
export class WardenError extends Error {
  /** Stable across versions: scripts and tests match on it, never on the message. */
  readonly code: string;
  readonly hint: string | undefined;

  constructor(code: string, message: string, options: WardenErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options.hint;
  }
}

/** A task.json that the guest will not run and the host will not write. */
export class BadSettingsError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_SETTINGS", message, options);
  }
}

/** A results archive, or a result.json inside it, that the host does not take. */
export class BadResultsError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_RESULTS", message, options);
  }
}

/** A bundle of changes that the host does not take. */
export class BadBundleError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_BUNDLE", message, options);
  }
}

/** A share that the guest cannot start from: a missing or unreadable file, a bad prompt. */
export class BadShareError extends WardenError {
  constructor(message: string, options: WardenErrorOptions = {}) {
    super("BAD_SHARE", message, options);
  }
}
