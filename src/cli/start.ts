// `warden start`: run a created or interrupted task in the foreground.
import type { Command } from "commander";
import { openTasks } from "./context.js";
import { runForeground } from "./foreground.js";

export function registerStart(program: Command): void {
  program
    .command("start")
    .summary("run a created or interrupted task")
    .description(
      "Run a task that was created and not yet run, or that was interrupted (its process died): " +
        "it runs again from its immutable spec, in a fresh workspace. A finished, cancelled or " +
        "expired task is refused.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--json", "print one JSON object at the end instead of text")
    .option("-q, --quiet", "show no progress")
    .action(async (ref: string, flags: { json?: boolean; quiet?: boolean }, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const id = await tasks.resolve(ref);
      process.exitCode = await runForeground(tasks, id, {
        json: flags.json === true,
        quiet: flags.quiet === true,
      });
    });
}
