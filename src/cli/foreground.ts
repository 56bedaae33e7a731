// Running a task in this process (run, start): live progress on stderr, the end on stdout, and
// SIGINT or SIGTERM stopping the sandbox and leaving the task to be run again.
import { loadConfig } from "../config/index.js";
import {
  executeTask,
  makeReporter,
  type ExecuteOutcome,
  type SandboxCheckMemo,
} from "../host/index.js";
import type { Tasks } from "../store/index.js";
import { mayPrompt, promptApprovals } from "./approvalPrompt.js";
import { EXIT, exitForState, type ExitCode } from "./exitCodes.js";
import { failureTail } from "./failureTail.js";
import { awaitResumeTime, type ResumeHold } from "./resumeWait.js";
import { detailsView, endLine, nextSteps, printJson, type TaskView } from "./taskView.js";
import { standardOut, standardError } from "./standardStreams.js";

export interface ForegroundOptions {
  json?: boolean;
  quiet?: boolean;
  /** Checks this process already made of the sandbox, to reuse rather than repeat. */
  sandboxOptions?: { checks: SandboxCheckMemo } | undefined;
  /**
   * The background run's turn (runTurn.ts): given back while the task waits for a usage limit's
   * reset, so the wait holds no slot of maxRunning, and taken again before it runs on; `take`
   * says false when the task needs no turn any more.
   */
  turn?: { giveBack(): void; take(): Promise<boolean> };
}

export async function runForeground(
  tasks: Tasks,
  id: string,
  options: ForegroundOptions,
): Promise<ExitCode> {
  // Until its first attach, this process is starting the task: `wait` and `watch` of it wait
  // rather than say nobody runs it (nobodyRuns.ts). Another process holding it starts it too,
  // and only one of the two will attach.
  const starting = await tasks.holdStarting(id);
  const reporter = makeReporter({
    out: standardError.stream(),
    taskId: id,
    shortId: await tasks.shortId(id),
    quiet: options.quiet === true,
  });
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      // A second signal means now: the sandbox dies with this process (bwrap --die-with-parent)
      // and the kernel lets go of the task's lock.
      process.exit(EXIT.failed);
    }
    reporter.note(`received ${signal}: stopping the sandbox (again to quit at once)`);
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // On a terminal the person who started the run answers the agent's permission prompts here.
  const prompting = new AbortController();
  const prompt = mayPrompt(process.stdin, standardError, options)
    ? promptApprovals({
        tasks,
        id,
        input: process.stdin,
        say: (text) => {
          reporter.note(text);
        },
        signal: prompting.signal,
      }).catch(() => undefined)
    : undefined;
  const hold: { lock?: ResumeHold } = {};
  try {
    // The daily cap is the user's alone: read from the user's file, never a repository's.
    const { dailyBudgetUsd: dailyBudgetUSD } = (await loadConfig()).values;
    let outcome: ExecuteOutcome;
    for (;;) {
      outcome = await executeTask(tasks, id, {
        reporter,
        ...(dailyBudgetUSD === undefined ? {} : { dailyBudgetUSD }),
        signal: controller.signal,
        ...(options.sandboxOptions === undefined ? {} : { sandboxOptions: options.sandboxOptions }),
      });
      starting?.release();
      const resumeAt = outcome.kind === "suspended" ? outcome.suspension.resumeAt : undefined;
      if (resumeAt === undefined) break;
      // Suspended until a usage limit resets: this process waits for it and runs the task on.
      options.turn?.giveBack();
      const waited = await awaitResumeTime(tasks, id, resumeAt, controller.signal, hold);
      if (waited !== "due") break;
      if (options.turn !== undefined && !(await options.turn.take())) break;
      reporter.note("the usage limit has reset: running the task on");
    }
    prompting.abort();
    await prompt;
    const details = await tasks.get(id);
    const view = detailsView(details);
    if (options.json === true) printJson(view);
    if (outcome.kind === "interrupted" || view.state === "interrupted") {
      if (options.json !== true) standardOut.write(`${id} interrupted\n`);
      standardError.write(
        `warden: the task was stopped before it ended\nhint: run it again with \`warden start ${id}\`, or end it with \`warden cancel ${id}\`\n`,
      );
      return EXIT.failed;
    }
    if (details.terminal === undefined) return notEnded(view, id, options.json === true);
    if (options.json !== true) {
      standardOut.write(endLine(view) + "\n");
      if (view.state === "failed") {
        for (const line of await failureTail(tasks, id, await tasks.shortId(id)))
          standardOut.write(line + "\n");
      }
      for (const step of nextSteps(view, await tasks.shortId(id))) standardOut.write(`  ${step}\n`);
    }
    return exitForState(view.state, details.terminal.stoppedBy);
  } finally {
    starting?.release();
    hold.lock?.release();
    prompting.abort();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * The task did not end in this process: it was suspended (on request, or it waits for a usage
 * limit's reset and this process was stopped), or it is someone else's now.
 */
function notEnded(view: TaskView, id: string, json: boolean): ExitCode {
  if (!json) standardOut.write(`${id} ${view.state}\n`);
  const hint =
    view.state === "suspended"
      ? view.suspended?.resumeAt === undefined
        ? `run it on with \`warden resume ${id}\``
        : `it resumes at ${view.suspended.resumeAt} while a process waits for it; \`warden resume ${id}\` runs it on now`
      : `follow it with \`warden watch ${id}\``;
  standardError.write(`warden: the task is ${view.state}\nhint: ${hint}\n`);
  return EXIT.failed;
}
