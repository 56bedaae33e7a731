// What a Codex item says in one short line: the command, the files, the query. Summaries are
// cleaned here (they are shown as they are, one line on a terminal); longer texts are only cut.
import { cleanLine, cutText } from "../protocol/index.js";
import { AGENT_EVENT_LIMITS } from "./agentEvent.js";
import type { CodexItem } from "./codexEvents.js";
import { CODEX_LIMITS } from "./codexLimits.js";

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

/** A long text (an answer, an error) cut to what one event may carry, marked when cut. */
export function cutMessage(value: string): string {
  const { text, cut } = cutText(value, AGENT_EVENT_LIMITS.textBytes - 4);
  return cut ? `${text}${CUT_MARK}` : text;
}

/** A name for an event: cleaned, cut, never empty. */
export function eventName(value: string): string {
  // Cut before cleaning too, so a huge name costs no more than a short one.
  const source = cutText(value, 4 * CODEX_LIMITS.toolNameBytes).text;
  const name = cutText(cleanLine(source), CODEX_LIMITS.toolNameBytes).text;
  return name === "" ? "?" : name;
}

/** The tool name warden shows for a Codex tool item, or undefined for an item that is no tool. */
export function codexToolName(item: CodexItem): string | undefined {
  switch (item.type ?? "") {
    case "command_execution":
      return "shell";
    case "file_change":
      return "file_change";
    case "web_search":
      return "web_search";
    case "mcp_tool_call":
      return eventName(`${item.server ?? "?"}.${item.tool ?? "?"}`);
    case "collab_tool_call":
      return eventName(`agent.${item.tool ?? "?"}`);
    default:
      return undefined;
  }
}

/** What a file change touches: `update src/a.ts, add b.ts (+3 more)`. */
function changesLine(item: CodexItem): string {
  const changes = item.changes ?? [];
  const shown = changes
    .slice(0, CODEX_LIMITS.summaryFiles)
    .map((c) => `${c.kind ?? "change"} ${c.path ?? "?"}`);
  const more = changes.length - shown.length;
  return shown.join(", ") + (more > 0 ? ` (+${more} more)` : "");
}

/** An MCP call's arguments as one line of JSON. */
function argumentsLine(value: unknown): string {
  if (value === undefined || value === null) return "";
  try {
    return JSON.stringify(value);
  } catch {
    return "";
  }
}

/** One line that says what a Codex tool item does. */
export function summarizeCodexInput(item: CodexItem): string {
  switch (item.type ?? "") {
    case "command_execution":
      return summaryLine(item.command ?? "");
    case "file_change":
      return summaryLine(changesLine(item));
    case "web_search":
      return summaryLine(item.query ?? "");
    case "mcp_tool_call":
      return summaryLine(argumentsLine(item.arguments));
    case "collab_tool_call":
      return summaryLine(item.prompt ?? "");
    default:
      return "";
  }
}

/** Whether a completed Codex tool item succeeded. */
export function codexToolOk(item: CodexItem): boolean {
  switch (item.type ?? "") {
    case "command_execution":
      return item.status === "completed" && (item.exit_code ?? 0) === 0;
    case "mcp_tool_call":
      return item.status === "completed" && (item.error?.message ?? undefined) === undefined;
    case "web_search":
      // A search item has no status: its completion is its result.
      return true;
    default:
      return item.status === "completed";
  }
}

/** One line of what a completed Codex tool item gave back, if it says anything. */
export function summarizeCodexResult(item: CodexItem): string | undefined {
  let value = "";
  switch (item.type ?? "") {
    case "command_execution": {
      const output = item.aggregated_output ?? "";
      if (output.trim() !== "") value = output;
      else if (item.status === "declined") value = "declined";
      else if (typeof item.exit_code === "number" && item.exit_code !== 0) {
        value = `exit ${item.exit_code}`;
      }
      break;
    }
    case "mcp_tool_call":
      value =
        item.error?.message ??
        (item.result?.content ?? [])
          .map((block) => block.text ?? "")
          .filter((t) => t.trim() !== "")
          .join("\n");
      break;
    case "file_change":
      value = item.status === "completed" ? "" : (item.status ?? "");
      break;
    default:
      value = "";
  }
  return value.trim() === "" ? undefined : summaryLine(value);
}
