// The exit codes of every verb (DESIGN.md "CLI conventions"), decided in one place.
import { WardenError } from "../protocol/index.js";
import type { StoppedBy, TaskState } from "../store/index.js";

export const EXIT = {
  /** Succeeded, or accepted (a detached run, a cancel request, a message). */
  ok: 0,
  /** Failed or cancelled, or an operational error. */
  failed: 1,
  /** A usage error or a bad reference (an unknown or ambiguous id). */
  usage: 2,
  /** A bound tripped (deadline, budget, turns, time limit, memory, processes, disk) or a wait timed out. */
  bound: 3,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for a task in `state`: 0 only for succeeded, 3 when a bound ended it. */
export function exitForState(state: TaskState, stoppedBy?: StoppedBy): ExitCode {
  switch (state) {
    case "succeeded":
      return EXIT.ok;
    case "failed":
      return stoppedBy === undefined ? EXIT.failed : EXIT.bound;
    case "cancelled":
    case "created":
    case "running":
    case "interrupted":
      return EXIT.failed;
  }
}

/**
 * Codes of errors from parts that do not say their exit class themselves (the protocol, the
 * network gate, the sandboxes): each is a setting or a name the user gave.
 */
const USAGE_CODES: ReadonlySet<string> = new Set([
  "BAD_SETTINGS",
  "BAD_ALLOW_ENTRY",
  "UNKNOWN_PRESET",
  "BAD_SANDBOX_REQUEST",
  "USAGE",
]);

/** The exit code for an error: the class the store and host give it, else by its code. */
export function exitForError(error: unknown): ExitCode {
  if (!(error instanceof WardenError)) return EXIT.failed;
  const exitClass = (error as { exitClass?: unknown }).exitClass;
  switch (exitClass) {
    case "usage":
      return EXIT.usage;
    case "bound":
      return EXIT.bound;
    case "operational":
      return EXIT.failed;
    default:
      return USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failed;
  }
}
