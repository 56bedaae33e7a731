// The process that ran a task the model API's usage limit suspended waits for the limit's reset
// and runs the task on (foreground `warden run`, and the background `warden start` of --detach
// alike). It holds resume.lock while it waits, so `warden serve` leaves the task to it; the wait
// ends early when the task changes under it (cancelled, removed, resumed by someone else).
import { setTimeout as sleep } from "node:timers/promises";
import { TaskNotFoundError, type Tasks } from "../store/index.js";
import { CLI_LIMITS } from "./limits.js";

/** How a wait ended: the time came, the task is no longer suspended, or the caller stopped. */
export type ResumeWait = "due" | "changed" | "aborted";

/** The resume lock, held from the first wait to the end of the run (see runForeground). */
export interface ResumeHold {
  release(): void;
}

/**
 * Waits until `resumeAt` while the task stays suspended. `hold` keeps resume.lock: taken here on
 * the first wait, released by the caller. Another process holding it means someone else will
 * resume the task: then this one stops waiting ("changed").
 */
export async function awaitResumeTime(
  tasks: Tasks,
  id: string,
  resumeAt: number,
  signal: AbortSignal,
  hold: { lock?: ResumeHold },
): Promise<ResumeWait> {
  hold.lock ??= await tasks.holdResumeWait(id);
  if (hold.lock === undefined) return "changed";
  for (;;) {
    if (signal.aborted) return "aborted";
    let state: string;
    try {
      state = (await tasks.get(id)).state;
    } catch (error) {
      if (error instanceof TaskNotFoundError) return "changed";
      throw error;
    }
    if (state !== "suspended") return "changed";
    const left = resumeAt - Date.now();
    if (left <= 0) return "due";
    await sleep(Math.min(left, CLI_LIMITS.resumeLookMs), undefined, { signal }).catch(
      () => undefined,
    );
  }
}
