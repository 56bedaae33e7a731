// A tool call in one short line: what a person watching wants to see of it (the command, the
// file, the pattern), never the whole input.
import { cleanLine, cutText } from "../protocol/index.js";
import { CLAUDE_TOOL_SUBJECT, LIKELY_SUBJECT_FIELDS } from "./claudeTools.js";
import { summaryLine } from "./eventText.js";
import { CLAUDE_LIMITS } from "./claudeLimits.js";
import { isObject, objects, text } from "./claudeFields.js";

/** The input field that says the most about a call of each of Claude Code's tools. */
const KEY_FIELD: Readonly<Record<string, string>> = {
  ...CLAUDE_TOOL_SUBJECT,
  Task: "description",
  Agent: "description",
  Skill: "skill",
};

/** Fields tried in order for a tool without an entry above (an MCP tool, a newer tool). */
const LIKELY_FIELDS = [...LIKELY_SUBJECT_FIELDS, "description"];

/** A tool's name as events carry it: cleaned and cut. */
export function toolName(value: unknown): string {
  const name = text(value) ?? "";
  return name === "" ? "?" : cutText(cleanLine(name), CLAUDE_LIMITS.toolNameBytes).text;
}

/** One line that says what a call of `name` with `input` does. */
export function summarizeToolInput(name: string, input: unknown): string {
  if (!isObject(input)) return "";
  if (name === "TodoWrite") return `${objects(input.todos).length} to-dos`;
  const key = KEY_FIELD[name];
  const fields = key === undefined ? LIKELY_FIELDS : [key];
  for (const field of fields) {
    const value = text(input[field]);
    if (value !== undefined && value.trim() !== "") return summaryLine(value);
  }
  let json: string;
  try {
    json = JSON.stringify(input);
  } catch {
    return "";
  }
  return summaryLine(json);
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
