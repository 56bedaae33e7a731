// How texts from an agent's stream become the texts of warden's events, the same for every
// agent: one short cleaned line for a summary, a cut (not yet cleaned) text for an answer or an
// error, a cleaned name, a cut id.
import { cleanLine, cutText } from "../protocol/index.js";
import { AGENT_EVENT_LIMITS } from "./limits.js";

/** The mark a cut text ends with, so nobody takes it for the whole. */
const CUT_MARK = " …";

/** Text looked at for a summary line: ample for one line, so a huge value costs no more. */
const SUMMARY_SOURCE_BYTES = 4 * AGENT_EVENT_LIMITS.summaryBytes;

/** The first non-blank line of `value`, cleaned and cut to a summary; "…" when more was there. */
export function summaryLine(value: string): string {
  const start = value.search(/\S/u);
  if (start === -1) return "";
  let end = value.indexOf("\n", start);
  if (end === -1) end = value.length;
  const rest = /\S/gu;
  rest.lastIndex = end;
  const more = rest.test(value);
  const source = cutText(value.slice(start, end).trim(), SUMMARY_SOURCE_BYTES);
  const line = cutText(cleanLine(source.text), AGENT_EVENT_LIMITS.summaryBytes - 4);
  return line.cut || source.cut || more ? `${line.text.trimEnd()}${CUT_MARK}` : line.text;
}

/** A summary line for an optional field: absent when there is nothing to say. */
export function optionalSummary(value: string | undefined): string | undefined {
  const line = summaryLine(value ?? "");
  return line === "" ? undefined : line;
}

/** A long text (an answer, an error) cut to what one event may carry, marked when cut. */
export function cutMessage(value: string): string {
  const { text, cut } = cutText(value, AGENT_EVENT_LIMITS.textBytes - 4);
  return cut ? `${text}${CUT_MARK}` : text;
}

/** A result's message: cut, and absent when it says nothing. */
export function resultMessage(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : cutMessage(value);
}

/** A name (a tool's, a model's) as events carry it: cleaned, cut, never empty. */
export function eventName(value: string | undefined): string {
  // Cut before cleaning too, so a huge name costs no more than a short one.
  const source = cutText(value ?? "", 4 * AGENT_EVENT_LIMITS.nameBytes).text;
  const name = cutText(cleanLine(source), AGENT_EVENT_LIMITS.nameBytes).text;
  return name === "" ? "?" : name;
}

/** An id (a tool call's, a session's) as events carry it: cut, so a hostile one costs no more. */
export function eventId(value: string | undefined): string | undefined {
  return value === undefined ? undefined : cutText(value, AGENT_EVENT_LIMITS.nameBytes).text;
}
