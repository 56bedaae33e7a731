// The CLI's own refusals: a command line it cannot act on (exit 2), and a file that is not there
// yet (exit 1).
import { WardenError } from "../protocol/index.js";

export { UsageError } from "../protocol/index.js";

/** A log or result the task has not made (yet). */
export class NothingToShowError extends WardenError {
  readonly code: string = "NOTHING_TO_SHOW";
  readonly exitClass = "operational";
}
