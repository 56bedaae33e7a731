// `warden rerun`: a new task with an old one's spec, run as `warden run` runs a task.
import type { Command } from "commander";
import { rerunTask } from "../host/index.js";
import { openTasks } from "./context.js";
import { runCreated, type RunHow } from "./run.js";

export function registerRerun(program: Command): void {
  program
    .command("rerun")
    .summary("run a task again, as a new task")
    .description(
      "Make a new task with the spec of an old one (its repository, start commit, agent, every " +
        "setting, prompt and labels; a deadline as long as it had) and run it as `warden run` " +
        "does: in the foreground, or with --detach in the background, printing the new id. The " +
        "old task, whatever its state, is left as it is.",
    )
    .argument("<id>", "the old task's id or a unique prefix of it")
    .option("-d, --detach", "run in the background; print the new task's id and return at once")
    .option("-q, --quiet", "show no progress")
    .option("--json", "print the new task as JSON")
    .action(async (ref: string, flags: RunHow, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const summary = await rerunTask(tasks, ref, { env: process.env });
      await runCreated(tasks, summary.id, flags);
    });
}
