// `warden diff`: the task's changes against its base, without touching the user's repository.
import type { Command } from "commander";
import { diffTask } from "../host/index.js";
import { timeText } from "../lang/index.js";
import { openTasks } from "./context.js";
import { printJson } from "./taskView.js";

export function registerDiff(program: Command): void {
  program
    .command("diff")
    .summary("show a task's changes")
    .description(
      "Show a finished task's verified changes against the commit it started from; of a task " +
        "that has not finished (running, interrupted), its changes as of its last checkpoint, " +
        "uncommitted work included (stderr says which checkpoint). The diff is made in a " +
        "scratch repository, so the task's repository gains nothing; the text is cleaned " +
        "before it is printed, since the sandbox wrote it.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--stat", "a summary of the changed files instead of the patch")
    .option(
      "--json",
      "print {id, base, head, diff} as JSON (and checkpoint, for an unfinished task)",
    )
    .option("--workspace <name>", "the changes of the workspace bound as NAME")
    .action(
      async (
        ref: string,
        flags: { stat?: boolean; json?: boolean; workspace?: string },
        cmd: Command,
      ) => {
        const tasks = await openTasks(cmd);
        const diff = await diffTask(tasks, ref, {
          stat: flags.stat === true,
          ...(flags.workspace === undefined ? {} : { workspace: flags.workspace }),
        });
        if (flags.json === true) {
          printJson(diff);
          return;
        }
        if (diff.checkpoint !== undefined) {
          const at = timeText(diff.checkpoint.at, Date.now());
          process.stderr.write(`as of checkpoint ${diff.checkpoint.seq}, kept ${at}\n`);
        }
        process.stdout.write(diff.diff);
      },
    );
}
