// The CLI's own refusals: a command line it cannot act on, and a file that is not there yet.
import { WardenError } from "../protocol/index.js";

/** A bad option value, a missing prompt: exit 2. */
export class UsageError extends WardenError {
  readonly exitClass = "usage";
  constructor(message: string, hint: string) {
    super("USAGE", message, { hint });
  }
}

/** A log or result the task has not made (yet): exit 1. */
export class NothingToShowError extends WardenError {
  readonly exitClass = "operational";
  constructor(message: string, hint: string) {
    super("NOTHING_TO_SHOW", message, { hint });
  }
}
