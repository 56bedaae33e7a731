// Wait: blocks until a task has its terminal record, or a timeout. It never attaches, except to
// record the end of a task nobody runs that is cancelled or past its deadline (as the next
// attach would), so a wait never outlasts a task's deadline for want of an executor.
import { existsSync } from "node:fs";
import { acquireLock, probeLock } from "./attachLock.js";
import { ChangeBell } from "./changeBell.js";
import type { StoreContext } from "./context.js";
import { ChildrenRunningError, waitRefused } from "./errors.js";
import { askerLineage } from "./lineage.js";
import { rootOf, waitDecision } from "./policy.js";
import { readFullSpec, readSpec, readTerminal, readTerminalSync } from "./readTask.js";
import { recordSettlement, settlementFor } from "./settle.js";
import type { StoredSpec } from "./spec.js";
import { runningChildren } from "./state.js";
import type { TaskPaths } from "./taskDir.js";
import type { TerminalRecord } from "./terminalRecord.js";
import { registerWaitEdge, type WaitEdge } from "./waitEdges.js";

export type WaitOutcome = { kind: "finished"; terminal: TerminalRecord } | { kind: "timed_out" };

export interface WaitOptions {
  /** Give up after this long (default: no limit). */
  timeoutMs?: number;
  /** Aborting rejects the wait with the signal's reason. */
  signal?: AbortSignal;
  /** The task that waits (default: the one this process runs in); null for outside any task. */
  by?: string | null;
}

function parentGone(ctx: StoreContext, spec: StoredSpec): boolean {
  if (spec.parent === null) return false;
  const parent = ctx.paths(spec.parent);
  return !existsSync(parent.dir) || readTerminalSync(parent) !== undefined;
}

/** Records the end of a task that nobody runs and that must end; quietly does nothing otherwise. */
async function settleOrphan(ctx: StoreContext, paths: TaskPaths, spec: StoredSpec): Promise<void> {
  const mustEnd = ctx.now() >= spec.deadline || existsSync(paths.cancel) || parentGone(ctx, spec);
  if (!mustEnd || probeLock(paths.attachLock) === "held") return;
  if (runningChildren(ctx, paths).length > 0) return;
  const lock = await acquireLock(paths.attachLock, { holder: ctx.holder("record") });
  if (lock === undefined) return;
  try {
    if (readTerminalSync(paths) !== undefined) return;
    const full = await readFullSpec(paths);
    const settlement = settlementFor(paths, full, ctx.now(), parentGone(ctx, spec));
    if (settlement !== undefined) await recordSettlement(ctx, paths, full, lock, settlement, 0);
  } catch (error) {
    if (!(error instanceof ChildrenRunningError)) throw error;
  } finally {
    lock.release();
  }
}

export async function waitTask(
  ctx: StoreContext,
  targetId: string,
  by: string | null,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const paths = ctx.paths(targetId);
  const target = await readSpec(paths);
  const asker = await askerLineage(ctx, by);
  const decision = waitDecision(asker, target);
  if (!decision.allowed) {
    throw waitRefused(by, targetId, decision.edge);
  }
  const { signal } = options;
  signal?.throwIfAborted();

  let edge: WaitEdge | undefined;
  if (asker !== undefined && decision.edge === "independent_root") {
    edge = await registerWaitEdge(ctx.dataDir, asker.id, rootOf(asker), target.id);
  }
  const bell = new ChangeBell(paths.dir, signal);
  const giveUpAt = ctx.now() + (options.timeoutMs ?? Infinity);
  try {
    for (;;) {
      const terminal = await readTerminal(paths);
      if (terminal !== undefined) return { kind: "finished", terminal };
      signal?.throwIfAborted();
      await settleOrphan(ctx, paths, target);
      if ((await readTerminal(paths)) !== undefined) continue;
      const now = ctx.now();
      if (now >= giveUpAt) return { kind: "timed_out" };
      // Wake at the deadline too, to record a deadline nobody is left to enforce.
      const untilDeadline = target.deadline > now ? target.deadline - now + 1 : Infinity;
      await bell.wait(Math.min(giveUpAt - now, untilDeadline));
    }
  } finally {
    bell.close();
    edge?.release();
  }
}
