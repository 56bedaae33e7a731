// `warden stop`: end the debug hold of a task created with --debug.
import type { Command } from "commander";
import { insideTarget, releaseHold } from "../host/index.js";
import { openTasks } from "./context.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

export function registerStop(program: Command): void {
  program
    .command("stop")
    .summary("end a --debug task's hold after its agent")
    .description(
      "A task created with --debug keeps its sandbox serving exec, shell and cp after its agent " +
        "ends. `warden stop` ends that hold: the runner commits what is left in the workspace " +
        "(the agent's work and yours), sends its results and the task ends as the agent's run " +
        "decides. Given while the agent still runs, the hold is skipped when it ends. To end a " +
        "task at once, use `warden cancel`.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--json", "print {id, released} as JSON")
    .action(async (ref: string, flags: { json?: boolean }, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const target = await insideTarget(tasks, ref, "debug");
      await releaseHold(target);
      if (flags.json === true) printJson({ id: target.id, released: true });
      else standardOut.write(`${target.id} released: its runner finishes and sends its results\n`);
    });
}
