// Every string of a value the dashboard sends is cleaned as the CLI cleans sandbox text: the page
// shows it as text, and no control, bidi or format character reaches it to reorder or hide what
// a person reads. Keys are cleaned too: a hostile event may name its own fields.
import { cleanText } from "../protocol/index.js";

/** How deep a value may nest before the rest is cut: events are shallow, a hostile one is not. */
const MAX_DEPTH = 32;

export function cleanJson(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return cleanText(value);
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_DEPTH) return "…";
  if (Array.isArray(value)) return value.map((item) => cleanJson(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[cleanText(key)] = cleanJson(item, depth + 1);
  return out;
}
