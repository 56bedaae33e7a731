// `warden cancel`: ask a task (and its unfinished descendants) to end.
import type { Command } from "commander";
import { openTasks } from "./context.js";
import { printJson } from "./taskView.js";

export function registerCancel(program: Command): void {
  program
    .command("cancel")
    .summary("cancel a task and its descendants")
    .description(
      "Ask a task to end: its executor stops the sandbox (SIGTERM, a grace, SIGKILL) and records " +
        "it cancelled. A task nobody runs is recorded cancelled at once. Its unfinished " +
        "descendants are cancelled with it. Returns once the request is written; `warden wait` " +
        "waits for the end.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--json", "print the outcome as JSON")
    .action(async (ref: string, flags: { json?: boolean }, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const outcome = await tasks.cancel(ref);
      if (flags.json === true) {
        printJson(outcome);
        return;
      }
      if (outcome.finished !== undefined) {
        process.stdout.write(`${outcome.id} had already finished (${outcome.finished.state})\n`);
        return;
      }
      const others = outcome.marked.length - 1;
      const more = others > 0 ? ` and ${others} descendant${others === 1 ? "" : "s"}` : "";
      const now = outcome.recorded.includes(outcome.id) ? "cancelled" : "cancelling";
      process.stdout.write(`${outcome.id} ${now}${more}\n`);
    });
}
