// Recording the end of a task that nobody runs: a task that is cancelled, past its deadline, or
// whose parent has finished ends without running again. Whoever holds its lock at that moment
// (an attacher, a canceller, a waiter) writes the record, as an executor would.
import { Attachment } from "./attachment.js";
import type { HeldLock } from "./attachLock.js";
import type { StoreContext } from "./context.js";
import { withInboxLock } from "./inbox.js";
import { readCancelSync, readTerminal } from "./readTask.js";
import type { TaskSpec } from "./spec.js";
import type { TaskPaths } from "./taskDir.js";
import type { TerminalInput } from "./buildTerminal.js";
import type { TerminalRecord } from "./terminalRecord.js";

export type SettlementKind = "cancelled" | "deadline" | "parent_finished";

export interface Settlement {
  kind: SettlementKind;
  input: TerminalInput;
}

/** Why a task without a live executor must end instead of running; undefined if it may run. */
export function settlementFor(
  paths: TaskPaths,
  spec: TaskSpec,
  now: number,
  parentFinished: boolean,
): Settlement | undefined {
  const cancelled = readCancelSync(paths) !== undefined;
  return settlementOf({ cancelled, deadline: spec.deadline, now, parentFinished });
}

/**
 * The same decision from the facts alone, for every store: a cancel request wins over a passed
 * deadline, which wins over a finished parent.
 */
export function settlementOf(facts: {
  cancelled: boolean;
  deadline: number;
  now: number;
  parentFinished: boolean;
}): Settlement | undefined {
  if (facts.cancelled) {
    return {
      kind: "cancelled",
      input: { state: "cancelled", error: "it was cancelled before it ran to its end" },
    };
  }
  if (facts.now >= facts.deadline) {
    return {
      kind: "deadline",
      input: {
        state: "failed",
        stoppedBy: "deadline",
        error: "its deadline passed before it ran to its end",
      },
    };
  }
  if (facts.parentFinished) {
    return {
      kind: "parent_finished",
      input: { state: "cancelled", error: "its parent finished before it ran to its end" },
    };
  }
  return undefined;
}

/**
 * Whether the parent has recorded its end, read under the parent's inbox.lock: a finishing
 * parent checks its children and writes terminal.json under that lock, so a child that holds
 * its own attach.lock and then sees no terminal record here is one the parent will wait for.
 * A parent that no longer exists counts as finished. A parent that had finished before the child
 * was made (the child continues its conversation, `warden continue`) does not: its end is not
 * one the child could have outlived.
 */
export async function parentHasFinished(
  ctx: StoreContext,
  parent: string,
  childCreatedAt: number,
): Promise<boolean> {
  const paths = ctx.paths(parent);
  try {
    return await withInboxLock(paths, async () => {
      const terminal = await readTerminal(paths);
      return terminal !== undefined && terminal.at >= childCreatedAt;
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return true;
    throw error;
  }
}

/** Writes the settlement's record as the lock holder, then releases the lock either way. */
export async function recordSettlement(
  ctx: StoreContext,
  paths: TaskPaths,
  spec: TaskSpec,
  lock: HeldLock,
  settlement: Settlement,
  childWaitMs?: number,
): Promise<TerminalRecord> {
  const attachment = await Attachment.begin(ctx, paths, spec, lock, "record");
  try {
    return await attachment.finish(settlement.input, { childWaitMs });
  } finally {
    attachment.release();
  }
}
