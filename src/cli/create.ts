// `warden create`: write a task without running it; `warden start` runs it.
import type { Command } from "commander";
import { createTask } from "../host/index.js";
import { openTasks } from "./context.js";
import { lookAtWorkingTree, warnUncommitted } from "./uncommittedWarning.js";
import { addTaskOptions, taskInput, type TaskFlags } from "./taskOptions.js";
import { detailsView, printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

export function registerCreate(program: Command): void {
  const command = program
    .command("create")
    .summary("create a task without running it")
    .description(
      "Create a task: resolve the repository and start commit, check every setting, and write the " +
        "task's immutable spec. Nothing runs until `warden start ID`. Prints the task's id.",
    );
  addTaskOptions(command).action(async (argv: string[], flags: TaskFlags, cmd: Command) => {
    const tasks = await openTasks(cmd);
    const input = await taskInput(flags, argv);
    // What running it needs of this host is checked before the task is written.
    const { summary, start } = await createTask(tasks, input, { env: process.env });
    await warnUncommitted(lookAtWorkingTree(start.repo), start.base, input.command);
    if (flags.json === true) printJson(detailsView(await tasks.get(summary.id)));
    else standardOut.write(summary.id + "\n");
  });
}
