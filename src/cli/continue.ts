// `warden continue`: a new task that goes on with a finished task's conversation, run as
// `warden run` runs a task.
import type { Command } from "commander";
import { continueTask } from "../host/index.js";
import { openTasks } from "./context.js";
import { runCreated, type RunHow } from "./run.js";

interface ContinueFlags extends RunHow {
  prompt: string;
  fork?: boolean;
  deadline?: string;
}

export function registerContinue(program: Command): void {
  program
    .command("continue")
    .summary("go on with a finished task's conversation, as a new task")
    .description(
      "Make a new task that starts from a finished task's verified changes (succeeded, failed " +
        "or cancelled) with its agent's session resumed, so the agent remembers the " +
        "conversation, and give it --prompt as its next message. The new task is the old " +
        "one's child (see `warden ls --tree`); with --fork it is a task of its own. It runs as " +
        "`warden run` runs a task: in the foreground, or with --detach in the background. The " +
        "old task's changes are fetched into its branch (warden/<id>) first when the " +
        "repository does not hold them yet.",
    )
    .argument("<id>", "the finished task's id or a unique prefix of it")
    .requiredOption("-p, --prompt <text>", "what the agent is to do next")
    .option("--fork", "make the new task a root of its own, not the old one's child")
    .option(
      "--deadline <when>",
      "when the new task must have ended: 2h, 3d, or a time (default 1h)",
    )
    .option("-d, --detach", "run in the background; print the new task's id and return at once")
    .option("-q, --quiet", "show no progress")
    .option("--json", "print the new task as JSON")
    .action(async (ref: string, flags: ContinueFlags, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const summary = await continueTask(
        tasks,
        ref,
        {
          prompt: flags.prompt,
          fork: flags.fork === true,
          ...(flags.deadline === undefined ? {} : { deadline: flags.deadline }),
        },
        { env: process.env },
      );
      await runCreated(tasks, summary.id, flags);
    });
}
