// What a Codex item says in one short line: the command, the files, the query. Summaries are
// cleaned here (they are shown as they are, one line on a terminal); longer texts are only cut.
import { eventName, summaryLine } from "../eventText.js";
import { CODEX_LIMITS } from "../limits.js";
import { jsonLine } from "../toolSummary.js";
import type { CodexItem } from "./lines.js";

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
      return summaryLine(jsonLine(item.arguments));
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
