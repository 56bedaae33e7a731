// `warden ls`: tasks newest first, each with its state, agent, elapsed time, changes and cost,
// fitted to the terminal's width, and a totals line; or their full ids (-q), or JSON.
import { realpath } from "node:fs/promises";
import type { Command } from "commander";
import { cleanLine } from "../protocol/index.js";
import { listFacts, taskSpend } from "../host/index.js";
import { TASK_STATES, isExpired, Tasks, type TaskStore, type TaskSummary } from "../store/index.js";
import { UsageError } from "./cliErrors.js";
import { colourWanted } from "./colour.js";
import { collect, withStore } from "./context.js";
import { parsePositive } from "./parseValues.js";
import { shownIds } from "./shownIds.js";
import { elapsedMs, tableLines, tableWidth, totalsLine } from "./taskTable.js";
import { printJson, taskView } from "./taskView.js";
import { standardOut, standardError } from "./standardStreams.js";

/** `expired` is derived (created or interrupted, past the deadline), so it is chosen apart. */
const LS_STATES = [...TASK_STATES, "expired"] as const;
type LsState = (typeof LS_STATES)[number];

interface LsFlags {
  state?: string[];
  limit?: string;
  quiet?: boolean;
  repo?: string;
  json?: boolean;
}

function checkStates(given: readonly string[]): LsState[] {
  for (const state of given) {
    if (!(LS_STATES as readonly string[]).includes(state)) {
      throw new UsageError(`--state ${cleanLine(state)} is not a state`, {
        hint: `the states are ${LS_STATES.join(", ")}`,
      });
    }
  }
  return given as LsState[];
}

/** A task's repository as the file system resolves it now, else as it was stored. */
async function realRepo(repo: string): Promise<string> {
  return realpath(repo).catch(() => repo);
}

async function onlyRepo(list: TaskSummary[], path: string): Promise<TaskSummary[]> {
  let wanted: string;
  try {
    wanted = await realpath(path);
  } catch {
    throw new UsageError(`--repo ${cleanLine(path)}: no such directory`, {
      hint: "pass --repo PATH of a repository tasks were made in",
    });
  }
  const resolved = new Map<string, string>();
  const out: TaskSummary[] = [];
  for (const task of list) {
    if (task.repo === undefined) continue;
    const real = resolved.get(task.repo) ?? (await realRepo(task.repo));
    resolved.set(task.repo, real);
    if (real === wanted) out.push(task);
  }
  return out;
}

/**
 * How many permission prompts wait for a person, for each running task of `list` that has any.
 * Only running tasks are read: a prompt waits only while its run does.
 */
async function pendingApprovals(
  tasks: TaskStore,
  list: readonly TaskSummary[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const task of list) {
    if (task.state !== "running") continue;
    const pending = (await tasks.approvals(task.id)).filter((r) => r.state === "pending").length;
    if (pending > 0) out.set(task.id, pending);
  }
  return out;
}

/**
 * What the relay has metered so far for each running task of `list`, from its spend record; a
 * finished task's cost is in its terminal record already.
 */
async function runningSpend(
  tasks: TaskStore,
  list: readonly TaskSummary[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  // A fleet's running task is metered on its worker, which keeps the sum for its end.
  if (!(tasks instanceof Tasks)) return out;
  for (const task of list) {
    if (task.state !== "running") continue;
    const spend = await taskSpend(tasks.dataDir, task.id);
    if (spend !== undefined) out.set(task.id, spend.costUSD);
  }
  return out;
}

export function registerLs(program: Command): void {
  program
    .command("ls")
    .summary("list tasks, newest first")
    .description(
      "List the tasks in the data directory, newest first, fitted to the terminal's width, " +
        "with a totals line.",
    )
    .option(
      "--state <state>",
      `only tasks in this state (repeatable): ${LS_STATES.join(", ")}`,
      collect,
    )
    .option("--repo <path>", "only tasks of this repository")
    .option("--limit <n>", "only the n newest tasks")
    .option("-q, --quiet", "print only full task ids, one per line")
    .option("--json", "print a JSON array")
    .action(async (flags: LsFlags, cmd: Command) => {
      const states = flags.state === undefined ? undefined : checkStates(flags.state);
      const limit = flags.limit === undefined ? undefined : parsePositive(flags.limit, "--limit");
      if (flags.quiet === true && flags.json === true) {
        throw new UsageError("-q and --json cannot be used together", {
          hint: "use -q for ids, one per line, or --json for everything",
        });
      }
      await withStore(cmd, async ({ store }) => listTasks(store, flags, states, limit));
    });
}

async function listTasks(
  tasks: TaskStore,
  flags: LsFlags,
  states: LsState[] | undefined,
  limit: number | undefined,
): Promise<void> {
  // A damaged task is named on stderr and left out; the rest are listed as always.
  const onDamaged = (id: string, error: Error): void => {
    standardError.write(`warden: task ${id} is left out: ${cleanLine(error.message)}\n`);
  };
  const now = Date.now();
  let list = (await tasks.list({ onDamaged })).reverse();
  if (states !== undefined) {
    list = list.filter(
      (t) => states.includes(t.state) || (states.includes("expired") && isExpired(t, now)),
    );
  }
  if (flags.repo !== undefined) list = await onlyRepo(list, flags.repo);
  const shownTasks = limit === undefined ? list : list.slice(0, limit);
  const spent = await runningSpend(tasks, shownTasks);
  if (flags.json === true) {
    const pending = await pendingApprovals(tasks, shownTasks);
    printJson(
      shownTasks.map((task) => ({
        ...taskView(task),
        ...listFacts(task),
        ...(spent.has(task.id) ? { costUSD: spent.get(task.id) } : {}),
        elapsedMs: elapsedMs(task, now),
        approvalsPending: pending.get(task.id) ?? 0,
      })),
    );
    return;
  }
  if (flags.quiet === true) {
    for (const task of shownTasks) standardOut.write(task.id + "\n");
    return;
  }
  if (shownTasks.length === 0) {
    standardOut.write("no tasks\n");
    return;
  }
  // Each task by its shortest unique prefix: ids made within a second share 8 characters.
  const shown = await shownIds(
    tasks,
    shownTasks.map((t) => t.id),
  );
  const width = tableWidth(process.env, standardOut);
  const waiting = new Set((await pendingApprovals(tasks, shownTasks)).keys());
  const colour = colourWanted(standardOut, process.env);
  const lines = tableLines(shownTasks, shown, now, width, { waiting, colour, spent });
  lines.push(totalsLine(shownTasks, list.length, waiting.size, spent));
  standardOut.write(lines.join("\n") + "\n");
}
