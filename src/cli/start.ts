// `warden start`: run a created, interrupted or suspended task, in the foreground or (--detach) in the
// background, in turn with the machine's other background runs.
import { Option, type Command } from "commander";
import { openTasks } from "./context.js";
import { WAIT_TURN_FLAG } from "./detach.js";
import { runForeground } from "./foreground.js";
import { runCreated } from "./run.js";
import { runInTurn } from "./runTurn.js";

interface StartFlags {
  json?: boolean;
  quiet?: boolean;
  detach?: boolean;
  waitTurn?: boolean;
}

export function registerStart(program: Command): void {
  program
    .command("start")
    .summary("run a created, interrupted or suspended task")
    .description(
      "Run a task that was created and not yet run, or that was interrupted (its process died): " +
        "it runs again from its immutable spec, in a fresh workspace. A suspended task runs on " +
        "as `warden resume` runs it. A finished, cancelled or " +
        "expired task is refused. With --detach it runs in the background, and waits its turn " +
        "(`queued`) while maxRunning background tasks run on this machine.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option(
      "-d, --detach",
      "run in the background, in turn with other background runs (maxRunning); print the id",
    )
    .option("--json", "print one JSON object at the end instead of text")
    .option("-q, --quiet", "show no progress")
    // The background process of --detach: it waits for a turn, then runs in the foreground.
    .addOption(new Option(WAIT_TURN_FLAG).hideHelp())
    .action(async (ref: string, flags: StartFlags, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const id = await tasks.resolve(ref);
      const how = { json: flags.json === true, quiet: flags.quiet === true };
      if (flags.detach === true) await runCreated(tasks, id, { ...how, detach: true });
      else if (flags.waitTurn === true) process.exitCode = await runInTurn(tasks, id, how);
      else process.exitCode = await runForeground(tasks, id, how);
    });
}
