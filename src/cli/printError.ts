// Errors as the CLI prints them: `warden: <what>` then `hint: <what to do>`, on stderr; with
// --json, one object `{"error", "code", "hint"}` on stdout instead, so a script can branch on the
// stable code. The message of a WardenError is already safe to print (sandbox text inside it was
// cleaned); anything else is cleaned here.
import { errorMessage } from "../lang/index.js";
import { cleanLine, WardenError } from "../protocol/index.js";
import { jsonText } from "./jsonText.js";
import { standardOut, standardError } from "./standardStreams.js";

/** The hint for an error that brings none: this is a bug of warden's, not the user's. */
const BUG_HINT = "this looks like a bug in warden; please report it with the command you ran";

/** An error in the words both forms print; `code` is null for an error warden did not expect. */
export interface ErrorView {
  error: string;
  code: string | null;
  hint: string;
}

export function errorView(error: unknown): ErrorView {
  if (error instanceof WardenError) {
    const hint = error.hint ?? "see `warden --help`";
    return { error: cleanLine(error.message), code: error.code, hint: cleanLine(hint) };
  }
  return { error: cleanLine(errorMessage(error)), code: null, hint: BUG_HINT };
}

export function printError(error: unknown, json: boolean): void {
  const view = errorView(error);
  if (json) standardOut.write(jsonText(view) + "\n");
  else standardError.write(`warden: ${view.error}\nhint: ${view.hint}\n`);
}
