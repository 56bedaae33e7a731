// What a Gemini tool call says in one short line: the command, the file, the pattern.
import { summarizeFields } from "../toolSummary.js";

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

/** A parameter as one line: a string as it is, a list of strings joined; else no text. */
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
  return summarizeFields(parameters, fields, asText);
}
