// `warden diff`: the task's changes against its base, without touching the user's repository.
import type { Command } from "commander";
import { diffTask } from "../host/index.js";
import { timeText } from "../lang/index.js";
import { LocalOnlyVerbError } from "./cliErrors.js";
import { withStore } from "./context.js";
import { printJson } from "./taskView.js";
import { standardOut, standardError } from "./standardStreams.js";

/** A fleet's task binds no workspace of this machine, so it has no workspace's changes. */
export function noFleetWorkspace(): Error {
  return new LocalOnlyVerbError("--workspace names a workspace of this machine's tasks only", {
    hint: "a fleet's task binds no other repository; drop --workspace",
  });
}

export function registerDiff(program: Command): void {
  program
    .command("diff")
    .summary("show a task's changes")
    .description(
      "Show a finished task's verified changes against the commit it started from; of a task " +
        "that has not finished (running, interrupted), its changes as of its last checkpoint, " +
        "uncommitted work included (stderr says which checkpoint). A fleet's task (--store) " +
        "must have finished: its changes are downloaded and verified here against the " +
        "repository first, as a local task's are. The diff is made in a " +
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
        const diff = await withStore(cmd, async (open) => {
          if (open.kind === "local") {
            return diffTask(open.tasks, ref, {
              stat: flags.stat === true,
              ...(flags.workspace === undefined ? {} : { workspace: flags.workspace }),
            });
          }
          if (flags.workspace !== undefined) throw noFleetWorkspace();
          const { diffFleetTask } = await import("../fleet/index.js");
          return diffFleetTask(open.fleet, ref, { stat: flags.stat === true });
        });
        if (flags.json === true) {
          printJson(diff);
          return;
        }
        if (diff.checkpoint !== undefined) {
          const at = timeText(diff.checkpoint.at, Date.now());
          standardError.write(`as of checkpoint ${diff.checkpoint.seq}, kept ${at}\n`);
        }
        standardOut.write(diff.diff);
      },
    );
}
