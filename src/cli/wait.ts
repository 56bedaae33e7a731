// `warden wait`: block until tasks finish, or a timeout.
import type { Command } from "commander";
import { durationText } from "../lang/index.js";
import type { TaskStore, WaitOutcome } from "../store/index.js";
import { withStore } from "./context.js";
import { EXIT, exitForError, exitForState, type ExitCode } from "./exitCodes.js";
import { whenNobodyRuns } from "./nobodyRuns.js";
import { parseMs } from "./parseValues.js";
import { printError } from "./printError.js";
import { detailsView, endLine, printJson } from "./taskView.js";
import { standardOut, standardError } from "./standardStreams.js";

interface WaitFlags {
  timeout?: string;
  json?: boolean;
}

/** How one task's wait ended: its end, the timeout, or the error that says nobody runs it. */
async function waitFor(
  tasks: TaskStore,
  id: string,
  timeoutMs: number | undefined,
): Promise<WaitOutcome | Error> {
  const stop = new AbortController();
  const waiting = tasks.wait(id, { timeoutMs, signal: stop.signal });
  const idle = whenNobodyRuns(tasks, id, stop.signal).then((error): Promise<WaitOutcome | Error> =>
    error === undefined ? waiting : Promise.resolve(error),
  );
  // Whichever loses the race is stopped, and how it then ends is of no interest.
  for (const loser of [waiting, idle]) loser.catch(() => undefined);
  return Promise.race([waiting, idle]).finally(() => {
    stop.abort();
  });
}

/** Prints how the wait on task `id` ended and returns the exit code it asks for. */
async function report(
  tasks: TaskStore,
  id: string,
  outcome: WaitOutcome | Error,
  flags: WaitFlags,
  timeoutMs: number | undefined,
): Promise<ExitCode> {
  if (outcome instanceof Error) {
    printError(outcome, flags.json === true);
    return exitForError(outcome);
  }
  const view = detailsView(await tasks.get(id));
  if (outcome.kind === "timed_out") {
    if (flags.json === true) printJson({ ...view, timedOut: true });
    else standardOut.write(`${id} ${view.state}\n`);
    standardError.write(
      `warden: task ${id} has not finished after ${durationText(timeoutMs ?? 0)}\nhint: wait longer with --timeout, or follow it with \`warden watch ${id}\`\n`,
    );
    return EXIT.bound;
  }
  if (flags.json === true) printJson(view);
  else standardOut.write(endLine(view) + "\n");
  return exitForState(outcome.terminal.state, outcome.terminal.stoppedBy);
}

export function registerWait(program: Command): void {
  program
    .command("wait")
    .summary("wait for tasks to finish")
    .description(
      "Wait until a task has finished and exit with its status: 0 succeeded, 1 failed or " +
        "cancelled, 3 a bound ended it, or 3 when --timeout passes first. A task nobody runs " +
        "(created, or interrupted) is not waited on: exit 4, with how to start it. Several ids " +
        "are waited on together, each reported as it ends, and the exit status is the largest " +
        "of theirs.",
    )
    .argument("<ids...>", "the tasks' ids or unique prefixes of them")
    .option("--timeout <duration>", "give up after this long: 30s, 10m, 2h")
    .option("--json", "print each task as one JSON object, one a line")
    .action(async (refs: string[], flags: WaitFlags, cmd: Command) => {
      const timeoutMs =
        flags.timeout === undefined ? undefined : parseMs(flags.timeout, "--timeout");
      await withStore(cmd, async ({ store: tasks }) => {
        // Every id is resolved before any wait begins: a typo is refused at once.
        const ids = [...new Set(await Promise.all(refs.map((ref) => tasks.resolve(ref))))];
        // Each task is reported as soon as its wait ends; the codes are kept in ids' order.
        const codes = await Promise.all(
          ids.map(async (id) =>
            report(tasks, id, await waitFor(tasks, id, timeoutMs), flags, timeoutMs),
          ),
        );
        process.exitCode = Math.max(...codes);
      });
    });
}
