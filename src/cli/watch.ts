// `warden watch`: a task's events as they happen, until it finishes.
import type { Command } from "commander";
import type { TaskStore } from "../store/index.js";
import { withStore } from "./context.js";
import { eventLine } from "./eventLine.js";
import { exitForState } from "./exitCodes.js";
import { whenNobodyRuns } from "./nobodyRuns.js";
import { parseCount } from "./parseValues.js";
import { printJson } from "./taskView.js";
import { standardOut, standardError } from "./standardStreams.js";

/**
 * The sequence number after which the last `tail` events of the task (after `since`) begin:
 * what `--tail` starts from.
 */
async function tailStart(
  tasks: TaskStore,
  id: string,
  since: number,
  tail: number,
): Promise<number> {
  let last = since;
  const seqs: number[] = [];
  for await (const event of tasks.watch(id, { since, follow: false })) {
    last = event.seq;
    seqs.push(event.seq);
    if (seqs.length > tail) seqs.shift();
  }
  const first = seqs[0];
  return first === undefined ? last : first - 1;
}

export function registerWatch(program: Command): void {
  program
    .command("watch")
    .summary("follow a task's events until it finishes")
    .description(
      "Print a task's events (progress, the agent's turns, tool calls, usage and cost, " +
        "approvals, messages, warnings, its end) from the start, then follow them until the " +
        "task finishes. Exits with the task's exit status. --json prints each event raw. A " +
        "task nobody runs (created, or interrupted) is not followed: exit 4, with how to start it.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--since <seq>", "only events after this sequence number")
    .option("-n, --tail <n>", "begin with the last n events (after --since) instead of the first")
    .option("--no-follow", "print the events so far and return")
    .option("--json", "print each event as a JSON line")
    .action(
      async (
        ref: string,
        flags: { since?: string; tail?: string; follow: boolean; json?: boolean },
        cmd: Command,
      ) => {
        await withStore(cmd, async ({ store }) => watchTask(store, ref, flags));
      },
    );
}

/** Prints the task's events as `watch` was asked to, and sets the exit status by its end. */
async function watchTask(
  tasks: TaskStore,
  ref: string,
  flags: { since?: string; tail?: string; follow: boolean; json?: boolean },
): Promise<void> {
  const id = await tasks.resolve(ref);
  const after = flags.since === undefined ? 0 : parseCount(flags.since, "--since");
  const since =
    flags.tail === undefined
      ? after
      : await tailStart(tasks, id, after, parseCount(flags.tail, "--tail"));
  // Following a task nobody runs would never end: the look stops the watch and says so.
  const stop = new AbortController();
  let nobodyRuns: Error | undefined;
  const look = flags.follow
    ? whenNobodyRuns(tasks, id, stop.signal).then((error) => {
        nobodyRuns = error;
        stop.abort();
      })
    : Promise.resolve();
  // A queued task has no events until its turn comes: say why the watch is quiet.
  if (flags.follow && flags.json !== true && (await tasks.get(id)).state === "queued") {
    standardError.write(
      "queued: it starts when a running background task ends (maxRunning in `warden config`)\n",
    );
  }
  try {
    for await (const event of tasks.watch(id, {
      since,
      follow: flags.follow,
      signal: stop.signal,
    })) {
      if (flags.json === true) printJson(event);
      else standardOut.write(eventLine(event) + "\n");
    }
  } finally {
    stop.abort();
  }
  await look;
  if (nobodyRuns !== undefined) throw nobodyRuns;
  const summary = await tasks.get(id);
  process.exitCode = exitForState(summary.state, summary.stoppedBy);
}
