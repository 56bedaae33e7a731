// A task's state is derived from its files, never stored twice: terminal.json → its state;
// else attach.lock held → running; else queue.lock held → queued (a background runner waits its
// turn); else suspended.json (its executor suspended it) → suspended; else never attached →
// created; else → interrupted.
import { probeLock } from "./attachLock.js";
import { readHolder, type LockHolder } from "./lockHolder.js";
import type { StoreContext } from "./context.js";
import { listChildren, readTerminalSync } from "./readTask.js";
import { readSuspendedSync, type SuspendRecord } from "./suspension.js";
import type { TaskPaths } from "./taskDir.js";
import type { TerminalRecord, TerminalState } from "./terminalRecord.js";

export const TASK_STATES = [
  "created",
  "queued",
  "running",
  "interrupted",
  "suspended",
  "succeeded",
  "failed",
  "cancelled",
] as const;
export type TaskState =
  "created" | "queued" | "running" | "interrupted" | "suspended" | TerminalState;

export interface DerivedState {
  state: TaskState;
  terminal?: TerminalRecord;
  /** Who runs it, as the holder wrote it (diagnostic only), when it is running. */
  holder?: LockHolder;
  /** Why it was suspended and when it resumes by itself, when it is suspended. */
  suspension?: SuspendRecord;
  /** When suspended: whether a process waits to resume it (it holds resume.lock). */
  resumeWaiter?: boolean;
}

export function isFinished(state: TaskState): boolean {
  return state === "succeeded" || state === "failed" || state === "cancelled";
}

/**
 * Whether a task is past its deadline with nobody running it (created, interrupted or
 * suspended). It can
 * never run again (an attach records it failed with the deadline), so lists show it as expired
 * and gc counts its deadline as its end. A derived view, like the state itself: nothing is written.
 */
export function isExpired(task: { state: TaskState; deadline: number }, now: number): boolean {
  const idle =
    task.state === "created" || task.state === "interrupted" || task.state === "suspended";
  return idle && now >= task.deadline;
}

/** The children of a task that an executor runs now. */
export function runningChildren(ctx: StoreContext, paths: TaskPaths): string[] {
  return listChildren(paths, ctx.tasksDir).filter(
    (child) => deriveState(ctx.paths(child)).state === "running",
  );
}

/** Derives the state: one read of terminal.json, and for an unfinished task one lock probe. */
export function deriveState(paths: TaskPaths): DerivedState {
  const terminal = readTerminalSync(paths);
  if (terminal !== undefined) return { state: terminal.state, terminal };
  const probe = probeLock(paths.attachLock);
  if (probe === "held") {
    const holder = readHolder(paths.attachLock);
    return holder === undefined ? { state: "running" } : { state: "running", holder };
  }
  // The executor may have written terminal.json and released the lock between the two looks.
  const late = readTerminalSync(paths);
  if (late !== undefined) return { state: late.state, terminal: late };
  // A background runner waits its turn for it (runQueue.ts); it holds queue.lock while it waits.
  if (probeLock(paths.queueLock) === "held") return { state: "queued" };
  // Written by the executor before it let go; the next attach removes it under the lock.
  const suspension = probe === "never_attached" ? undefined : readSuspendedSync(paths);
  if (suspension !== undefined) {
    const resumeWaiter = probeLock(paths.resumeLock) === "held";
    return { state: "suspended", suspension, resumeWaiter };
  }
  return { state: probe === "never_attached" ? "created" : "interrupted" };
}
