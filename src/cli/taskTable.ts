// The rows of `warden ls` as text: pure, from the tasks, their shown ids and the width to fit.
// The title is the last column and the only one cut, so every other fact stays readable.
import { cleanLine } from "../protocol/index.js";
import { dollars, listFacts } from "../host/index.js";
import type { TaskSummary } from "../store/index.js";
import { CLI_LIMITS } from "./limits.js";
import { stateWords, taskView } from "./taskView.js";

const GAP = "  ";
const ELLIPSIS = "…";

/** A span of time as a person reads it: `42s`, `3m12s`, `2h5m`, `3d4h`. */
export function humaneDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d${Math.floor((s % 86_400) / 3600)}h`;
}

/**
 * The width rows must fit, or undefined for none: `COLUMNS` when it is a positive number (as
 * coreutils' ls reads it, and so a test or a pipe can ask for a width), else the terminal's
 * width when stdout is one. Output to a pipe or a file is never cut.
 */
export function tableWidth(
  env: NodeJS.ProcessEnv,
  out: { isTTY?: boolean; columns?: number },
): number | undefined {
  const columns = Number(env.COLUMNS);
  if (env.COLUMNS !== undefined && Number.isSafeInteger(columns) && columns > 0) return columns;
  return out.isTTY === true && (out.columns ?? 0) > 0 ? out.columns : undefined;
}

/** Text cut to `room` characters, its last one an ellipsis when anything was cut. */
function cut(text: string, room: number): string {
  const chars = Array.from(text);
  return chars.length <= room ? text : chars.slice(0, Math.max(0, room - 1)).join("") + ELLIPSIS;
}

/** What CHANGES says: the verified commits, `none`, or blank while the task has not finished. */
function changesText(task: TaskSummary): string {
  const facts = listFacts(task);
  if (facts.commits !== undefined) return String(facts.commits);
  if (facts.changes === undefined) return "";
  return facts.changes ? "yes" : "none";
}

/** From creation to the end, or to now while the task has not finished. */
export function elapsedMs(task: TaskSummary, now: number): number {
  return (task.finishedAt ?? now) - task.createdAt;
}

/** The table's lines: a header, one row per task in the order given, and no totals. */
export function tableLines(
  tasks: readonly TaskSummary[],
  shown: ReadonlyMap<string, string>,
  now: number,
  width: number | undefined,
): string[] {
  const rows = tasks.map((task) => {
    const cost = listFacts(task).costUSD;
    return [
      shown.get(task.id) ?? task.id,
      stateWords(taskView(task), ""),
      listFacts(task).agent ?? "",
      humaneDuration(elapsedMs(task, now)),
      changesText(task),
      cost === undefined ? "" : dollars(cost),
    ];
  });
  const header = ["ID", "STATE", "AGENT", "ELAPSED", "CHANGES", "COST"];
  // Numbers are right-aligned so their digits line up.
  const right = [false, false, false, true, true, true];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const fixed = widths.reduce((sum, w) => sum + w + GAP.length, 0);
  const room =
    width === undefined ? undefined : Math.max(CLI_LIMITS.lsTitleMinColumns, width - fixed);
  const line = (cells: string[], title: string): string =>
    cells
      .map((cell, i) =>
        right[i] === true ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join(GAP) +
    GAP +
    (room === undefined ? title : cut(title, room));
  return [
    line(header, "TITLE"),
    ...rows.map((cells, i) => line(cells, cleanLine(tasks[i]?.title ?? ""))),
  ];
}

/** The last line: how many tasks are shown (of how many matched), how many run, what they cost. */
export function totalsLine(shownTasks: readonly TaskSummary[], matched: number): string {
  const count = shownTasks.length;
  const tasks =
    count === matched ? `${count} task${count === 1 ? "" : "s"}` : `${count} of ${matched} tasks`;
  const running = shownTasks.filter((t) => t.state === "running").length;
  const costs = shownTasks.flatMap((t) => listFacts(t).costUSD ?? []);
  const cost = costs.length === 0 ? "" : `, ${dollars(costs.reduce((a, b) => a + b, 0))} spent`;
  return `${tasks}, ${running} running${cost}`;
}
