// What a Gemini tool call says in one short line: the command, the file, the pattern. Summaries
// are cleaned here (they are shown as they are, one line on a terminal); longer texts are only cut.
import { cleanLine, cutText } from "../protocol/index.js";
import { AGENT_EVENT_LIMITS } from "./agentEvent.js";
import { GEMINI_LIMITS } from "./geminiLimits.js";

/** The mark a cut text ends with, so nobody takes it for the whole. */
const CUT_MARK = " …";

/** The parameter that says the most about a call of each of Gemini CLI's own tools. */
const KEY_FIELD: Readonly<Record<string, string>> = {
  run_shell_command: "command",
  read_file: "file_path",
  write_file: "file_path",
  replace: "file_path",
  read_many_files: "include",
  list_directory: "dir_path",
  glob: "pattern",
  grep_search: "pattern",
  search_file_content: "pattern",
  google_web_search: "query",
  web_fetch: "prompt",
  save_memory: "fact",
};

/** Parameters tried in order for a tool without an entry above (an MCP tool, a newer tool). */
const LIKELY_FIELDS = [
  "command",
  "file_path",
  "absolute_path",
  "path",
  "dir_path",
  "pattern",
  "url",
  "query",
  "prompt",
  "description",
];

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

/** A long text (an answer, an error) cut to what one event may carry, marked when cut. */
export function cutMessage(value: string): string {
  const { text, cut } = cutText(value, AGENT_EVENT_LIMITS.textBytes - 4);
  return cut ? `${text}${CUT_MARK}` : text;
}

/** A name (a tool's, a model's) as events carry it: cleaned, cut, never empty. */
export function eventName(value: string | undefined): string {
  // Cut before cleaning too, so a huge name costs no more than a short one.
  const source = cutText(value ?? "", 4 * GEMINI_LIMITS.toolNameBytes).text;
  const name = cutText(cleanLine(source), GEMINI_LIMITS.toolNameBytes).text;
  return name === "" ? "?" : name;
}

/** A parameter as one line: a string as it is, anything else as JSON. */
function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(" ");
  return undefined;
}

/** One line that says what a call of `name` with `parameters` does. */
export function summarizeGeminiInput(
  name: string,
  parameters: Readonly<Record<string, unknown>> | undefined,
): string {
  if (parameters === undefined) return "";
  const key = KEY_FIELD[name];
  const fields = key === undefined ? LIKELY_FIELDS : [key, ...LIKELY_FIELDS];
  for (const field of fields) {
    const value = asText(parameters[field]);
    if (value !== undefined && value.trim() !== "") return summaryLine(value);
  }
  let json: string;
  try {
    json = JSON.stringify(parameters);
  } catch {
    return "";
  }
  return summaryLine(json);
}
