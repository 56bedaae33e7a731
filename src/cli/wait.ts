// `warden wait`: block until a task finishes, or a timeout.
import type { Command } from "commander";
import type { WaitOutcome } from "../store/index.js";
import { openTasks } from "./context.js";
import { EXIT, exitForState } from "./exitCodes.js";
import { whenNobodyRuns } from "./nobodyRuns.js";
import { parseMs } from "./parseValues.js";
import { detailsView, endLine, printJson } from "./taskView.js";

export function registerWait(program: Command): void {
  program
    .command("wait")
    .summary("wait for a task to finish")
    .description(
      "Wait until a task has finished and exit with its status: 0 succeeded, 1 failed or " +
        "cancelled, 3 a bound ended it, or 3 when --timeout passes first. A task nobody runs " +
        "(created, or interrupted) is not waited on: exit 4, with how to start it.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--timeout <duration>", "give up after this long: 30s, 10m, 2h")
    .option("--json", "print the task as one JSON object")
    .action(async (ref: string, flags: { timeout?: string; json?: boolean }, cmd: Command) => {
      const timeoutMs =
        flags.timeout === undefined ? undefined : parseMs(flags.timeout, "--timeout");
      const tasks = await openTasks(cmd);
      const id = await tasks.resolve(ref);
      const stop = new AbortController();
      const waiting = tasks.wait(id, { timeoutMs, signal: stop.signal });
      const idle = whenNobodyRuns(tasks, id, stop.signal).then(
        (error): Promise<WaitOutcome | Error> =>
          error === undefined ? waiting : Promise.resolve(error),
      );
      // Whichever loses the race is stopped, and how it then ends is of no interest.
      for (const loser of [waiting, idle]) loser.catch(() => undefined);
      const outcome = await Promise.race([waiting, idle]).finally(() => {
        stop.abort();
      });
      if (outcome instanceof Error) throw outcome;
      const view = detailsView(await tasks.get(id));
      if (outcome.kind === "timed_out") {
        if (flags.json === true) printJson({ ...view, timedOut: true });
        else process.stdout.write(`${id} ${view.state}\n`);
        process.stderr.write(
          `warden: task ${id} has not finished after ${flags.timeout ?? ""}\nhint: wait longer with --timeout, or follow it with \`warden watch ${id}\`\n`,
        );
        process.exitCode = EXIT.bound;
        return;
      }
      if (flags.json === true) printJson(view);
      else process.stdout.write(endLine(view) + "\n");
      process.exitCode = exitForState(outcome.terminal.state, outcome.terminal.stoppedBy);
    });
}
