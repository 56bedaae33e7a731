// `warden gc`: remove tasks that finished long ago, and history caches no task has used as long.
import type { Command } from "commander";
import { trimHistoryCaches, trimSetupCaches } from "../host/index.js";
import { durationText } from "../lang/index.js";
import { openTasks } from "./context.js";
import { parseMs } from "./parseValues.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

export function registerGc(program: Command): void {
  program
    .command("gc")
    .summary("remove old finished tasks")
    .description(
      "Remove tasks that finished longer ago than --older-than (default 7d), expired tasks " +
        "(nobody runs them and their deadline passed) whose deadline is as old, and what " +
        "crashed creators and unfinished removals (a task's workspace, deleted in the " +
        "background once it ends) left behind. Other unfinished tasks are never removed. The " +
        "cache of a repository's history that no running task holds and no task used for as long is " +
        "removed too (the next task on that repository fills it again), and so is each setup " +
        "snapshot no task has started from for as long (the next task with that setup runs it again).",
    )
    .option("--older-than <duration>", "the age: 12h, 7d, 30d", "7d")
    .option("--json", "print the outcome as JSON")
    .action(async (flags: { olderThan: string; json?: boolean }, cmd: Command) => {
      const olderThan = parseMs(flags.olderThan, "--older-than");
      const tasks = await openTasks(cmd);
      const outcome = await tasks.gc({ olderThan });
      const caches = await trimHistoryCaches(tasks.dataDir, { olderThan, now: Date.now() });
      const setups = await trimSetupCaches(tasks.dataDir, { olderThan, now: Date.now() });
      if (flags.json === true)
        printJson({ ...outcome, historyCaches: caches, setupCaches: setups });
      else {
        const n = outcome.removed.length;
        standardOut.write(
          `removed ${n} task${n === 1 ? "" : "s"} finished more than ${durationText(olderThan)} ago\n`,
        );
        const c = caches.removed.length;
        if (c > 0) {
          standardOut.write(`removed ${c} history cache${c === 1 ? "" : "s"} unused as long\n`);
        }
        const s = setups.removed.length;
        if (s > 0) {
          standardOut.write(`removed ${s} setup snapshot${s === 1 ? "" : "s"} unused as long\n`);
        }
      }
    });
}
