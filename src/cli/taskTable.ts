// The rows of `warden ls` as text: pure, from the tasks, their shown ids and the width to fit.
// The title is the last column and the only one cut, so every other fact stays readable.
import { durationText } from "../lang/index.js";
import { cleanLine } from "../protocol/index.js";
import { dollars, listFacts } from "../host/index.js";
import type { TaskSummary } from "../store/index.js";
import { paintState } from "./colour.js";
import { CLI_LIMITS } from "./limits.js";
import { stateWords, taskView } from "./taskView.js";

const GAP = "  ";
const ELLIPSIS = "…";
/** The column of the state, the only one painted. */
const STATE_COLUMN = 1;

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
export function cut(text: string, room: number): string {
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

/** How the rows look beyond their facts. */
export interface TableLook {
  /** The tasks whose agent waits for a person's answer to a permission prompt. */
  waiting?: ReadonlySet<string>;
  /** Paint the states (colour.ts decides whether the output may have colour). */
  colour?: boolean;
  /** What the relay has metered so far for running tasks, by id (their records). */
  spent?: ReadonlyMap<string, number>;
}

/** The STATE cell: `running(approval)` while the agent waits for a person, else stateWords. */
function stateCell(task: TaskSummary, waiting: boolean): string {
  return waiting ? `${task.state}(approval)` : stateWords(taskView(task), "");
}

/** The table's lines: a header, one row per task in the order given, and no totals. */
export function tableLines(
  tasks: readonly TaskSummary[],
  shown: ReadonlyMap<string, string>,
  now: number,
  width: number | undefined,
  look: TableLook = {},
): string[] {
  const waits = (task: TaskSummary): boolean =>
    task.state === "running" && look.waiting?.has(task.id) === true;
  const rows = tasks.map((task) => {
    const cost = look.spent?.get(task.id) ?? listFacts(task).costUSD;
    return [
      shown.get(task.id) ?? task.id,
      stateCell(task, waits(task)),
      listFacts(task).agent ?? "",
      durationText(elapsedMs(task, now)),
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
  const line = (cells: string[], title: string, task?: TaskSummary): string =>
    cells
      .map((cell, i) => {
        const padded =
          right[i] === true ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0);
        return i === STATE_COLUMN && task !== undefined
          ? paintState(padded, task.state, look.colour === true, waits(task))
          : padded;
      })
      .join(GAP) +
    GAP +
    (room === undefined ? title : cut(title, room));
  return [
    line(header, "TITLE"),
    ...rows.map((cells, i) => line(cells, cleanLine(tasks[i]?.title ?? ""), tasks[i])),
  ];
}

/**
 * The last line: how many tasks are shown (of how many matched), how many run (and of those, how
 * many wait for a person's approval), what they cost.
 */
export function totalsLine(
  shownTasks: readonly TaskSummary[],
  matched: number,
  waiting = 0,
  spent: ReadonlyMap<string, number> = new Map(),
): string {
  const count = shownTasks.length;
  const tasks =
    count === matched ? `${count} task${count === 1 ? "" : "s"}` : `${count} of ${matched} tasks`;
  const running = shownTasks.filter((t) => t.state === "running").length;
  const costs = shownTasks.flatMap((t) => spent.get(t.id) ?? listFacts(t).costUSD ?? []);
  const cost = costs.length === 0 ? "" : `, ${dollars(costs.reduce((a, b) => a + b, 0))} spent`;
  const asking = waiting === 0 ? "" : ` (${waiting} waiting for approval)`;
  return `${tasks}, ${running} running${asking}${cost}`;
}
