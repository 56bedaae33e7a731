// `warden rm`: remove tasks that are not running.
import type { Command } from "commander";
import { openTasks } from "./context.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

export function registerRm(program: Command): void {
  program
    .command("rm")
    .summary("remove tasks")
    .description("Remove tasks and their files. A running task is refused: cancel it first.")
    .argument("<id...>", "the tasks' ids or unique prefixes")
    .option("-r, --recursive", "remove each task's children with it")
    .option("--json", "print the removed ids as JSON")
    .action(
      async (refs: string[], flags: { recursive?: boolean; json?: boolean }, cmd: Command) => {
        const tasks = await openTasks(cmd);
        const removed: string[] = [];
        for (const ref of refs)
          removed.push(...(await tasks.remove(ref, { recursive: flags.recursive === true })));
        if (flags.json === true) printJson({ removed });
        else for (const id of removed) standardOut.write(`removed ${id}\n`);
      },
    );
}
