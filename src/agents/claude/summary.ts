// What a call of one of Claude Code's tools says in one short line: the command, the file, the
// pattern, never the whole input.
import { summaryLine } from "../eventText.js";
import { isObject } from "../jsonLines.js";
import { summarizeFields } from "../toolSummary.js";
import { objects, text } from "./fields.js";
import { CLAUDE_TOOL_SUBJECT, LIKELY_SUBJECT_FIELDS } from "./tools.js";

/** The input field that says the most about a call of each of Claude Code's tools. */
const KEY_FIELD: Readonly<Record<string, string>> = {
  ...CLAUDE_TOOL_SUBJECT,
  Task: "description",
  Agent: "description",
  Skill: "skill",
};

/** Fields tried in order for a tool without an entry above (an MCP tool, a newer tool). */
const LIKELY_FIELDS = [...LIKELY_SUBJECT_FIELDS, "description"];

/** One line that says what a call of `name` with `input` does. */
export function summarizeToolInput(name: string, input: unknown): string {
  if (!isObject(input)) return "";
  if (name === "TodoWrite") return `${objects(input.todos).length} to-dos`;
  const key = KEY_FIELD[name];
  return summarizeFields(input, key === undefined ? LIKELY_FIELDS : [key], text);
}

/** One line of a tool result's content: a string, or text blocks. */
export function summarizeToolResult(content: unknown): string | undefined {
  const value =
    text(content) ??
    objects(content)
      .map((block) => text(block.text))
      .filter((t) => t !== undefined)
      .join("\n");
  return value.trim() === "" ? undefined : summaryLine(value);
}
