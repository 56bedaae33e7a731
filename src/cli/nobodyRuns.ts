// A task nobody runs (created and never started, or interrupted when its runner died) never
// ends by itself, so `wait` and `watch` stop following it and say how to start it, never hang.
import { setTimeout as sleep } from "node:timers/promises";
import { isExpired, Tasks, type TaskStore, type TaskState } from "../store/index.js";
import { TaskNotRunningError } from "./cliErrors.js";

/**
 * How long a task must be seen with nobody running it, without a break, before `wait` and
 * `watch` say so. A `warden start` launched a moment ago (by hand, or the background one of
 * `run --detach`) holds the task's start.lock from once Node has started until it attaches, and
 * a task whose start.lock is held is not left alone; the grace covers Node's start before that.
 */
export const NOBODY_RUNS_GRACE_MS = 2_000;

/** How often the task's state is looked at meanwhile: one lock probe and a few small reads. */
const LOOK_EVERY_MS = 200;

type Unattended = "created" | "interrupted" | "suspended";

/**
 * Whether nobody will run the task by itself: created, interrupted, or suspended with no time to
 * resume at (a suspension on request waits for `warden resume`; one for a usage limit resumes
 * at its reset).
 */
function isUnattended(state: TaskState, resumeAt: number | undefined): state is Unattended {
  if (state === "suspended") return resumeAt === undefined;
  return state === "created" || state === "interrupted";
}

/** The error that says nobody runs task `id`, which is in `state`, and how to start it. */
export function nobodyRunsError(id: string, state: Unattended, expired: boolean): Error {
  const what =
    state === "created"
      ? `task ${id} was created but nobody runs it`
      : state === "suspended"
        ? `task ${id} is suspended until someone resumes it`
        : `task ${id} was interrupted (its runner stopped) and nobody runs it`;
  if (expired) {
    return new TaskNotRunningError(`${what}, and its deadline has passed`, {
      hint: `it can no longer run; remove it with \`warden rm ${id}\`, or run it again as a new task`,
    });
  }
  const verb = state === "suspended" ? "resume" : "start";
  return new TaskNotRunningError(what, { hint: `${verb} it with \`warden ${verb} ${id}\`` });
}

/**
 * Resolves with the error to throw once nobody has run the task for the whole grace, or with
 * undefined when the signal aborts first (the task ended, or the caller stopped following it).
 */
export async function whenNobodyRuns(
  tasks: TaskStore,
  id: string,
  signal: AbortSignal,
): Promise<Error | undefined> {
  // A fleet's task that nobody runs waits for a worker to take it from the queue: it is not
  // left alone, and following it waits for that worker.
  if (!(tasks instanceof Tasks)) {
    return new Promise((resolve) => {
      if (signal.aborted) resolve(undefined);
      signal.addEventListener("abort", () => {
        resolve(undefined);
      });
    });
  }
  let unattendedSince: number | undefined;
  while (!signal.aborted) {
    const details = await tasks.get(id);
    const now = Date.now();
    const { state } = details;
    // A task being started (start.lock held) is not left alone, whatever it reads now.
    if (!isUnattended(state, details.suspension?.resumeAt) || (await tasks.isBeingStarted(id))) {
      unattendedSince = undefined;
    } else {
      unattendedSince ??= now;
      if (now - unattendedSince >= NOBODY_RUNS_GRACE_MS) {
        return nobodyRunsError(id, state, isExpired(details, now));
      }
    }
    await sleep(LOOK_EVERY_MS, undefined, { signal }).catch(() => undefined);
  }
  return undefined;
}
