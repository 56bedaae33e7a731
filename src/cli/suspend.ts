// `warden suspend` and `warden resume`: stop a running task without ending it, and run it on.
import type { Command } from "commander";
import { suspendedTask, suspendWhenOf, suspendWhenText, type SuspendWhen } from "../host/index.js";
import type { SuspendOutcome } from "../store/index.js";
import { openTasks } from "./context.js";
import { runForeground } from "./foreground.js";
import { runCreated } from "./run.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

interface SuspendFlags {
  now?: boolean;
  json?: boolean;
}

interface ResumeFlags {
  json?: boolean;
  quiet?: boolean;
  detach?: boolean;
}

export function registerSuspend(program: Command): void {
  program
    .command("suspend")
    .summary("stop a running task without ending it")
    .description(
      "Ask the process that runs a task to stop it at the agent's next turn boundary (for Claude " +
        "Code, after a step: an assistant message and its tool results) or, with --now, at once. " +
        "The sandbox is stopped and freed and the task reads `suspended` until `warden resume` " +
        "runs it on. Its deadline still holds: a task suspended past its deadline ends failed " +
        "(deadline) when it is resumed. An agent without turns (a command) is stopped at once. " +
        "Returns once the request is written; `warden watch` follows it.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--now", "stop at once rather than at the next turn boundary")
    .option("--json", "print the request as JSON")
    .action(async (ref: string, flags: SuspendFlags, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const outcome = await tasks.suspend(ref, { now: flags.now === true });
      const when = suspendWhenOf(await tasks.get(outcome.id), outcome.request.now);
      if (flags.json === true) printJson({ ...outcome, when });
      else standardOut.write(suspendLine(outcome, when) + "\n");
    });

  program
    .command("resume")
    .summary("run a suspended task on")
    .description(
      "Run a suspended task on, in the foreground or (--detach) in the background, as `warden " +
        "start` runs a task. A task the model API's usage limit suspended resumes by itself at " +
        "the limit's reset while the process that ran it waits (and `warden serve` resumes it " +
        "when that process is gone); resume runs it on at once. Refused for a task that is not " +
        "suspended.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option(
      "-d, --detach",
      "run in the background, in turn with other background runs (maxRunning); print the id",
    )
    .option("--json", "print one JSON object at the end instead of text")
    .option("-q, --quiet", "show no progress")
    .action(async (ref: string, flags: ResumeFlags, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const how = { json: flags.json === true, quiet: flags.quiet === true };
      // The background process of --detach is `start`, which runs a suspended task too.
      const id = await suspendedTask(tasks, ref);
      if (flags.detach === true) await runCreated(tasks, id, { ...how, detach: true });
      else process.exitCode = await runForeground(tasks, id, how);
    });
}

function suspendLine(outcome: SuspendOutcome, when: SuspendWhen): string {
  return outcome.requested
    ? `${outcome.id} suspending ${suspendWhenText(when, outcome.request.now)}`
    : `${outcome.id} was already asked to suspend`;
}
