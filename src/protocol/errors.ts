// Errors are typed: a class per kind, a stable code, a message in the user's words and a hint.
// Every class fixes its code and the exit class the CLI maps to its exit status, and takes
// `(message, { hint, cause })`: the caller says what went wrong, and a class whose kind always
// has the same remedy says it once, in its static `hint`.

/**
 * How the CLI exits on an error: 2 for usage, 1 for operational, 3 for a bound, 4 for a task
 * that nobody runs (a wait on it would never end).
 */
export type ExitClass = "usage" | "operational" | "bound" | "not_running";

export interface WardenErrorOptions {
  /** What the user can do about it. */
  hint?: string;
  cause?: unknown;
}

/** The root of every error warden raises on purpose. */
export abstract class WardenError extends Error {
  /** The hint of an error of this class whose caller gives none. */
  static readonly hint: string | undefined;
  /** Stable across versions and one class's alone: scripts and tests match on it, never on the message. */
  abstract readonly code: string;
  abstract readonly exitClass: ExitClass;
  readonly hint: string | undefined;

  constructor(message: string, options: WardenErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint ?? new.target.hint;
  }
}

/** A command line, of `warden` or of the runner, that cannot be acted on. */
export class UsageError extends WardenError {
  readonly code: string = "USAGE";
  readonly exitClass = "usage";
}

/** A git command that warden ran, on the host or in the sandbox, that failed or was stopped. */
export class GitError extends WardenError {
  readonly code: string = "GIT_FAILED";
  readonly exitClass = "operational";
  /**
   * What git wrote on stderr when it exited with an error, as it wrote it: for code that reads
   * git's own report, never for a terminal (the message holds the cleaned text).
   */
  readonly gitStderr: string | undefined;
  constructor(message: string, options: WardenErrorOptions & { gitStderr?: string } = {}) {
    super(message, options);
    this.gitStderr = options.gitStderr;
  }
}

/** A task.json that the guest will not run and the host will not write. */
export class BadSettingsError extends WardenError {
  readonly code: string = "BAD_SETTINGS";
  readonly exitClass = "usage";
}

/** A results archive, or a result.json inside it, that the host does not take. */
export class BadResultsError extends WardenError {
  readonly code: string = "BAD_RESULTS";
  readonly exitClass = "operational";
}

/** A bundle of changes that the host does not take. */
export class BadBundleError extends WardenError {
  readonly code: string = "BAD_BUNDLE";
  readonly exitClass = "operational";
}

/** A share that the guest cannot start from: a missing or unreadable file, a bad prompt. */
export class BadShareError extends WardenError {
  readonly code: string = "BAD_SHARE";
  readonly exitClass = "operational";
}
