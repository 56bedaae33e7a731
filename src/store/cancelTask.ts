// Cancel: downward only. The target and each of its unfinished descendants get a `cancel` file;
// an executor sees it and ends the task. Tasks that nobody runs are recorded cancelled at once,
// deepest first, so a parent's record never precedes its children's.
import { acquireLock, probeLock } from "./attachLock.js";
import type { StoreContext } from "./context.js";
import { writeCancelFile } from "./createTask.js";
import { cancelRefused, ChildrenRunningError } from "./errors.js";
import { askerLineage } from "./lineage.js";
import { cancelDecision } from "./policy.js";
import { listChildren, readFullSpec, readSpec, readTerminalSync } from "./readTask.js";
import { recordSettlement, settlementFor } from "./settle.js";
import { runningChildren } from "./state.js";
import type { TaskPaths } from "./taskDir.js";
import type { CancelRequest, TerminalRecord } from "./terminalRecord.js";

export interface CancelOutcome {
  id: string;
  /** The tasks that got a cancel request now: the target and its unfinished descendants. */
  marked: string[];
  /** The tasks nobody was running, recorded cancelled at once. */
  recorded: string[];
  /** Set when the target had already finished: then nothing was done. */
  finished?: TerminalRecord;
}

/** Whether the cancel request should reach this task, and its subtree be walked. */
function unfinished(ctx: StoreContext, id: string): boolean {
  return readTerminalSync(ctx.paths(id)) === undefined;
}

async function markCancelled(paths: TaskPaths, request: CancelRequest): Promise<boolean> {
  try {
    return await writeCancelFile(paths, request);
  } catch (error) {
    // Removed while the tree was walked: there is nothing left to cancel.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

export async function cancelTask(
  ctx: StoreContext,
  targetId: string,
  by: string | null,
): Promise<CancelOutcome> {
  const target = await readSpec(ctx.paths(targetId));
  const decision = cancelDecision(await askerLineage(ctx, by), target);
  if (!decision.allowed) {
    throw cancelRefused(by, targetId, decision.edge);
  }
  const done = readTerminalSync(ctx.paths(targetId));
  if (done !== undefined) return { id: targetId, marked: [], recorded: [], finished: done };

  const request = { by, at: ctx.now(), target: targetId };
  const visited: string[] = [];
  const queue = [targetId];
  const marked: string[] = [];
  while (queue.length > 0) {
    const id = queue.shift() ?? "";
    const paths = ctx.paths(id);
    // A finished task keeps its record; its unstarted children still get the request.
    if (unfinished(ctx, id)) {
      visited.push(id);
      if (await markCancelled(paths, request)) marked.push(id);
    }
    queue.push(...listChildren(paths, ctx.tasksDir));
  }

  const recorded: string[] = [];
  for (const id of visited.reverse()) {
    const paths = ctx.paths(id);
    // A task with a running child cannot end yet; leaving its lock file alone keeps a task
    // that never ran reading `created`.
    if (probeLock(paths.attachLock) === "held" || !unfinished(ctx, id)) continue;
    if (runningChildren(ctx, paths).length > 0) continue;
    const lock = await acquireLock(paths.attachLock, { holder: ctx.holder("record") });
    if (lock === undefined) continue; // An executor took it just now; it will see the request.
    try {
      if (!unfinished(ctx, id)) continue;
      const spec = await readFullSpec(paths);
      const settlement = settlementFor(paths, spec, ctx.now(), false);
      if (settlement === undefined) continue;
      await recordSettlement(ctx, paths, spec, lock, settlement, 0);
      recorded.push(id);
    } catch (error) {
      // A child still runs: the executor of that child ends it, and the next attach or wait
      // records this one.
      if (!(error instanceof ChildrenRunningError)) throw error;
    } finally {
      lock.release();
    }
  }
  return { id: targetId, marked, recorded };
}
