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
  /** Nobody runs the task (created, or interrupted), so waiting on it would never end. */
  notRunning: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code for a task in `state`: 0 only for succeeded, 3 when a bound ended it. */
export function exitForState(state: TaskState, stoppedBy?: StoppedBy): ExitCode {
  switch (state) {
    case "succeeded":
      return EXIT.ok;
    case "failed":
      // A failed setup is the task's own failure, not a bound it reached.
      return stoppedBy === undefined || stoppedBy === "setup" ? EXIT.failed : EXIT.bound;
    case "cancelled":
    case "created":
    case "queued":
    case "running":
    case "interrupted":
    case "suspended":
      return EXIT.failed;
  }
}

/** The exit code for an error: by the exit class its class fixes; 1 for any other error. */
export function exitForError(error: unknown): ExitCode {
  if (!(error instanceof WardenError)) return EXIT.failed;
  switch (error.exitClass) {
    case "usage":
      return EXIT.usage;
    case "bound":
      return EXIT.bound;
    case "operational":
      return EXIT.failed;
    case "not_running":
      return EXIT.notRunning;
  }
}
