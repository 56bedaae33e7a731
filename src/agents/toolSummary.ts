// A tool call in one short line, the same way for every agent: the input field that says the
// most about the call (the command, the file, the pattern), else the whole input as JSON, never
// more than one line. Which fields say the most is each agent's own knowledge.
import { summaryLine } from "./eventText.js";

/** A value as one line of JSON; "" for none, or for one JSON cannot write. */
export function jsonLine(value: unknown): string {
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value);
  } catch {
    return "";
  }
}

/**
 * One line that says what a call with `input` does: the first of `fields` that holds text (as
 * `asText` reads it), else the input as JSON.
 */
export function summarizeFields(
  input: Readonly<Record<string, unknown>>,
  fields: readonly string[],
  asText: (value: unknown) => string | undefined,
): string {
  for (const field of fields) {
    const value = asText(input[field]);
    if (value !== undefined && value.trim() !== "") return summaryLine(value);
  }
  return summaryLine(jsonLine(input));
}
