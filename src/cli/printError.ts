// Errors as the CLI prints them: `warden: <what>` then `hint: <what to do>`, on stderr. The
// message of a WardenError is already safe to print (sandbox text inside it was cleaned);
// anything else is cleaned here.
import { cleanLine, WardenError } from "../protocol/index.js";

/** The hint for an error that brings none: this is a bug of warden's, not the user's. */
const BUG_HINT = "this looks like a bug in warden; please report it with the command you ran";

export function formatError(error: unknown): string {
  if (error instanceof WardenError) {
    const hint = error.hint ?? "see `warden --help`";
    return `warden: ${cleanLine(error.message)}\nhint: ${cleanLine(hint)}\n`;
  }
  const text = error instanceof Error ? error.message : String(error);
  return `warden: ${cleanLine(text)}\nhint: ${BUG_HINT}\n`;
}

export function printError(error: unknown): void {
  process.stderr.write(formatError(error));
}
