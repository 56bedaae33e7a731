// The background run of `run --detach` and `start --detach`: it waits its turn among this
// machine's background runs (at most maxRunning of them run at once, from the user's config),
// then runs the task as `warden start` does. While it waits the task reads `queued`; a cancel
// ends the wait, and killing this process gives its place back (runQueue.ts in the store).
import { loadConfig } from "../config/index.js";
import { makeReporter } from "../host/index.js";
import { AlreadyQueuedError, awaitTurn, TaskNotFoundError, type Tasks } from "../store/index.js";
import { EXIT, type ExitCode } from "./exitCodes.js";
import { runForeground, type ForegroundOptions } from "./foreground.js";
import { standardError } from "./standardStreams.js";

/** Whether the task needs no turn any more: it ended, was removed, or its deadline passed. */
async function needsNoTurn(tasks: Tasks, id: string): Promise<boolean> {
  try {
    const details = await tasks.get(id);
    return details.terminal !== undefined || Date.now() >= details.deadline;
  } catch (error) {
    if (error instanceof TaskNotFoundError) return true;
    throw error;
  }
}

export async function runInTurn(
  tasks: Tasks,
  id: string,
  options: ForegroundOptions,
): Promise<ExitCode> {
  // The limit is the machine's, so only the user's own file sets it, never a repository's.
  const config = await loadConfig();
  const maxRunning = Number(config.entries.find((entry) => entry.key === "maxRunning")?.value);
  const reporter = makeReporter({
    out: standardError.stream(),
    taskId: id,
    shortId: await tasks.shortId(id),
    quiet: options.quiet === true,
  });
  const takeTurn = () =>
    awaitTurn({
      dataDir: tasks.dataDir,
      id,
      maxRunning,
      isOver: () => needsNoTurn(tasks, id),
      onWait: (ahead) => {
        reporter.note(
          `queued: ${ahead} ahead; this machine runs ${maxRunning} background ` +
            `task${maxRunning === 1 ? "" : "s"} at once (maxRunning)`,
        );
      },
    });
  let turn = await takeTurn();
  if (turn === undefined) {
    const details = await tasks.get(id).catch(() => undefined);
    if (details === undefined) {
      reporter.note(`task ${id} was removed before its turn came`);
      return EXIT.failed;
    }
    // A deadline that passed while it waited is recorded by the attach that runs it now.
    if (details.terminal !== undefined) {
      reporter.note(`task ${id} ended (${details.state}) before its turn came`);
      return EXIT.failed;
    }
  }
  // While the task waits for a usage limit's reset its turn is given back, and taken again after.
  const turns = {
    giveBack: () => {
      turn?.release();
      turn = undefined;
    },
    take: async () => {
      try {
        turn = await takeTurn();
      } catch (error) {
        // Another background run queued it meanwhile (`warden serve`, `resume --detach`).
        if (error instanceof AlreadyQueuedError) return false;
        throw error;
      }
      return turn !== undefined;
    },
  };
  try {
    return await runForeground(tasks, id, { ...options, turn: turns });
  } finally {
    turn?.release();
  }
}
