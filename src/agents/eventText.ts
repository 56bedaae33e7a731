// How texts from an agent's stream become the texts of warden's events, the same for every
// agent: one short cleaned line for a summary, a cut (not yet cleaned) text for an answer or an
// error, a cleaned name; and how one line of a stream is read at all.
import type { z } from "zod";
import { cleanLine, cutText } from "../protocol/index.js";
import { AGENT_EVENT_LIMITS } from "./agentEvent.js";

/** The mark a cut text ends with, so nobody takes it for the whole. */
const CUT_MARK = " …";

/** Text looked at for a summary line: ample for one line, so a huge value costs no more. */
const SUMMARY_SOURCE_BYTES = 4 * AGENT_EVENT_LIMITS.summaryBytes;

/** A tool's or a model's name in an event: longer names are made up, not real. */
export const EVENT_NAME_BYTES = 128;

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

/** A long text (an answer, an error) cut to what one event may carry, marked when cut. */
export function cutMessage(value: string): string {
  const { text, cut } = cutText(value, AGENT_EVENT_LIMITS.textBytes - 4);
  return cut ? `${text}${CUT_MARK}` : text;
}

/** A name (a tool's, a model's) as events carry it: cleaned, cut, never empty. */
export function eventName(value: string | undefined): string {
  // Cut before cleaning too, so a huge name costs no more than a short one.
  const source = cutText(value ?? "", 4 * EVENT_NAME_BYTES).text;
  const name = cutText(cleanLine(source), EVENT_NAME_BYTES).text;
  return name === "" ? "?" : name;
}

/** Parses one line of a JSON-lines stream against `schema`; undefined when it cannot be read. */
export function readStreamLine<T>(raw: string, schema: z.ZodType<T>): T | undefined {
  const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  // A string's UTF-16 length is at least a third of its UTF-8 bytes: the cheap check first.
  if (line.length > AGENT_EVENT_LIMITS.lineBytes) return undefined;
  if (Buffer.byteLength(line) > AGENT_EVENT_LIMITS.lineBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
