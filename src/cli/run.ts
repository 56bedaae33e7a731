// `warden run`: create a task and run it, in the foreground or (--detach) in the background.
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Command } from "commander";
import {
  createTask,
  keptSandboxChecks,
  SandboxCheckMemo,
  type CreateTaskInput,
} from "../host/index.js";
import type { Tasks } from "../store/index.js";
import { UsageError } from "./cliErrors.js";
import { collect, openStore } from "./context.js";
import { runOnFleet } from "./fleetRun.js";
import { parseRequire } from "./requireLabels.js";
import { lookAtWorkingTree, warnUncommitted } from "./uncommittedWarning.js";
import { detach } from "./detach.js";
import { EXIT } from "./exitCodes.js";
import { addTaskOptions, taskInput, type TaskFlags } from "./taskOptions.js";
import { detailsView, printJson } from "./taskView.js";
import { standardOut, standardError } from "./standardStreams.js";

interface RunFlags extends TaskFlags, RunHow {
  require?: string[];
}

export function registerRun(program: Command): void {
  const command = program
    .command("run")
    .summary("create a task and run it")
    .description(
      "Create a task on a repository and run its agent in a sandbox, in the foreground (progress " +
        "on stderr, the end on stdout) or, with --detach, in a background process that outlives " +
        "the terminal. The work comes back as a verified branch: see `warden diff` and `warden fetch`.",
    );
  addTaskOptions(command)
    .option(
      "-d, --detach",
      "run in the background, in turn with other background runs (maxRunning); print the id",
    )
    .option("-q, --quiet", "show no progress")
    .option(
      "--require <label>",
      "with a fleet's store: a label NAME=VALUE the worker that runs it must have (repeatable)",
      collect,
    )
    .addHelpText(
      "after",
      "\nExamples:\n" +
        "  warden run --repo . --prompt 'add a test for parseArgs'        # Claude Code\n" +
        "  warden run --max-turns 30 --max-budget-usd 2 --approve prompt \\\n" +
        "    --allow-tool 'Bash(npm test*)' --deny-tool 'Bash(git push*)' --prompt-file task.md\n" +
        "  warden run --repo . --prompt 'add a test' -- ./my-agent.sh     # any command\n" +
        "  warden run --timeout 30m --preset npm --detach --prompt-file task.md -- ./agent.sh\n" +
        "\nWith --approve prompt on a terminal, run asks you itself when the agent asks leave\n" +
        "(y allow, n deny, a allow that tool from now on, ? explain); `warden approve` from\n" +
        "another terminal answers too, and the first answer counts.\n" +
        "\nExit status: 0 succeeded (or accepted with --detach), 1 failed or cancelled,\n" +
        "2 usage error, 3 a bound ended it (deadline, budget, turns, time limit).\n",
    )
    .action(async (argv: string[], flags: RunFlags, cmd: Command) => {
      const open = await openStore(cmd);
      try {
        const input = await taskInput(flags, argv);
        if (open.kind === "fleet") {
          if (flags.require !== undefined) input.require = parseRequire(flags.require);
          await runOnFleet(open.fleet, input, flags);
          return;
        }
        if (flags.require !== undefined) {
          throw new UsageError("--require names a fleet worker's labels", {
            hint: "run it with --store nats://HOST:PORT, or without --require",
          });
        }
        await runHere(open.tasks, input, flags);
      } finally {
        await open.close();
      }
    });
}

/** Creates the task in this machine's store and runs it here. */
async function runHere(tasks: Tasks, input: CreateTaskInput, flags: RunFlags): Promise<void> {
  // What running it needs of this host is checked before the task is written; the attach
  // that follows at once takes the sandbox's check from the memo instead of a second trial.
  const sandboxOptions = {
    checks: new SandboxCheckMemo({ passes: keptSandboxChecks(tasks.dataDir) }),
  };
  const creating = createTask(tasks, input, { env: process.env, sandboxOptions });
  // While createTask waits for git, the warning's look at the working tree (a git status of its
  // own) runs, and the code that runs the task in the foreground loads: after this turn of the
  // event loop, so that createTask's git processes have started first. The warning is still
  // printed before the run begins.
  const looked = lookAtWorkingTree(input.repo);
  if (flags.detach !== true) void nextTurn().then(() => import("./foreground.js").then(noop, noop));
  const { summary, start } = await creating;
  const warned = warnUncommitted(looked, start.base, input.command);
  await runCreated(tasks, summary.id, { ...flags, sandboxOptions }, warned);
}

function noop(): void {
  // A failure to load is met again, and reported, by runCreated's own import.
}

/** What `run` and `rerun` share: the flags that say how a task they made is run. */
export interface RunHow {
  detach?: boolean;
  quiet?: boolean;
  json?: boolean;
  /** The sandbox checks the creating step made, for a run in this process to reuse. */
  sandboxOptions?: { checks: SandboxCheckMemo };
}

/**
 * Runs the task `run` or `rerun` just made: in the foreground, or in the background; `before`
 * (what is printed before the run begins) is awaited first.
 */
export async function runCreated(
  tasks: Tasks,
  id: string,
  flags: RunHow,
  before: Promise<void> = Promise.resolve(),
): Promise<void> {
  if (flags.detach !== true) {
    // Running in the foreground needs most of warden's code (the sandboxes, the network gate,
    // the agents), which `run --detach` and `run --help` do not.
    const [{ runForeground }] = await Promise.all([import("./foreground.js"), before]);
    try {
      process.exitCode = await runForeground(tasks, id, {
        json: flags.json === true,
        quiet: flags.quiet === true,
        sandboxOptions: flags.sandboxOptions,
      });
    } catch (error) {
      // Refused before it ran (a variable not set, a sandbox that cannot run here): the task
      // exists, and `warden start` runs it once the cause is fixed.
      if (flags.json === true) printJson(detailsView(await tasks.get(id)));
      else standardOut.write(`${id} created, not run\n`);
      throw error;
    }
    return;
  }
  await before;
  const detached = await detach(tasks, id);
  const view = detailsView(await tasks.get(id));
  if (flags.json === true) printJson({ ...view, detached: true, log: detached.log });
  else standardOut.write(id + "\n");
  // The hint goes to stderr, so `id=$(warden run --detach ...)` still captures the id alone.
  if (detached.failed === undefined && flags.json !== true) {
    const short = await tasks.shortId(id);
    if (view.state === "queued") {
      standardError.write(
        "queued: it runs when a background task ends (maxRunning, see `warden config`)\n",
      );
    }
    standardError.write(`hint: follow it with \`warden watch ${short}\`\n`);
  }
  if (detached.failed !== undefined) {
    standardError.write(detached.failed.log.trimEnd() + "\n");
    standardError.write(
      `warden: the background run of ${id} ended before it started the task\n` +
        `hint: fix what it says above, then run it with \`warden start ${id}\`\n`,
    );
    process.exitCode = EXIT.failed;
  }
}
