// A failure as one line of a task's record. Warden's own errors say what went wrong in words
// already safe to show; any other error's message may quote the sandbox, so it is cleaned.
import { errorMessage } from "../lang/index.js";
import { cleanLine, WardenError } from "../protocol/index.js";

export function errorText(error: unknown): string {
  if (error instanceof WardenError) return error.message;
  return cleanLine(errorMessage(error));
}
