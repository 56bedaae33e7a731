// Removing tasks: refused for a running task (its lock is taken first, so no executor can start
// in between). The directory is renamed out of tasks/ in one step and then deleted, so a task is
// either wholly there or gone.
import { randomBytes } from "node:crypto";
import { readdir, rename, rm, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { acquireLock } from "./attachLock.js";
import type { StoreContext } from "./context.js";
import { REMOVAL_NONCE_BYTES, REMOVAL_PREFIX, removalPath } from "./dataDir.js";
import { deadlineTime } from "./deadline.js";
import {
  BadDeadlineError,
  HasChildrenError,
  StoreCorruptError,
  TaskRunningError,
} from "./errors.js";
import { STORE_LIMITS, STORE_TIMING } from "./limits.js";
import { listChildren, readSpec, readSpecSync } from "./readTask.js";
import { deriveState, isExpired } from "./state.js";
import { listSummaries, type TaskSummary } from "./summary.js";

export interface RemoveOptions {
  /** Remove the task's whole subtree with it (children first). */
  recursive?: boolean;
}

/**
 * What `read` gives, or `fallback` when the task's files are damaged: a damaged task can still
 * be removed, which is what the damage's hint tells the user to do. Its lock still guards it.
 */
function unlessDamaged<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof StoreCorruptError) return fallback;
    throw error;
  }
}

async function removeOne(ctx: StoreContext, id: string): Promise<void> {
  const paths = ctx.paths(id);
  const lock = await acquireLock(paths.attachLock, { holder: ctx.holder("remove") });
  if (lock === undefined)
    throw new TaskRunningError(`task ${id} is running, so it cannot be removed`);
  const trash = removalPath(ctx.dataDir, id, randomBytes(REMOVAL_NONCE_BYTES).toString("hex"));
  let parent: string | null = null;
  try {
    parent = unlessDamaged(() => readSpecSync(paths)?.parent ?? null, null);
    await rename(paths.dir, trash);
  } finally {
    lock.release();
  }
  await rm(trash, { recursive: true, force: true });
  if (parent !== null) {
    await unlink(join(ctx.paths(parent).children, id)).catch(() => undefined);
  }
}

/** The subtree of `id`, children before their parents. */
function subtreeChildrenFirst(ctx: StoreContext, id: string): string[] {
  const out: string[] = [];
  for (const child of listChildren(ctx.paths(id), ctx.tasksDir)) {
    out.push(...subtreeChildrenFirst(ctx, child));
  }
  out.push(id);
  return out;
}

export async function removeTask(
  ctx: StoreContext,
  id: string,
  options: RemoveOptions = {},
): Promise<string[]> {
  // Refuses a task that is not there; a damaged one is still removed.
  await readSpec(ctx.paths(id)).catch((error: unknown) => {
    if (!(error instanceof StoreCorruptError)) throw error;
  });
  const children = listChildren(ctx.paths(id), ctx.tasksDir);
  if (children.length > 0 && options.recursive !== true) {
    throw new HasChildrenError(`task ${id} has ${children.length} child task(s)`);
  }
  const order = subtreeChildrenFirst(ctx, id);
  // Refuse before anything is gone; each removal then takes the task's lock to be sure.
  for (const each of order) {
    const state = unlessDamaged(() => deriveState(ctx.paths(each)).state, undefined);
    if (state === "running") {
      throw new TaskRunningError(`task ${each} is running, so it cannot be removed`);
    }
  }
  for (const each of order) await removeOne(ctx, each);
  return order;
}

export interface GcOptions {
  /** Remove tasks that finished at least this long ago: ms, or a duration such as "7d" (default 7 days). */
  olderThan?: number | string;
}

export interface GcOutcome {
  /** The tasks removed, children before parents. */
  removed: string[];
  /** Leftovers of creators and removals that died, deleted from tmp/. */
  staging: number;
}

function ageOf(olderThan: number | string | undefined): number {
  if (olderThan === undefined) return STORE_LIMITS.gcDefaultAgeMs;
  if (typeof olderThan === "number") {
    if (!Number.isFinite(olderThan) || olderThan < 0) {
      throw new BadDeadlineError("an age is a number of milliseconds, 0 or more");
    }
    return olderThan;
  }
  return deadlineTime(olderThan, 0);
}

/**
 * Removes finished tasks older than the age, and expired ones whose deadline is that old (their
 * deadline is their end), but never a task that still has a child it keeps, and deletes what
 * dead creators and removals left in tmp/.
 */
export async function collectGarbage(
  ctx: StoreContext,
  options: GcOptions = {},
): Promise<GcOutcome> {
  const cutoff = ctx.now() - ageOf(options.olderThan);
  const tasks = await listSummaries(ctx);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const children = new Map<string, TaskSummary[]>();
  for (const t of tasks) {
    if (t.parent !== null) children.set(t.parent, [...(children.get(t.parent) ?? []), t]);
  }
  const memo = new Map<string, boolean>();
  const removable = (t: TaskSummary): boolean => {
    const known = memo.get(t.id);
    if (known !== undefined) return known;
    const endedAt = isExpired(t, ctx.now()) ? t.deadline : t.finishedAt;
    const old = endedAt !== undefined && endedAt <= cutoff;
    const result = old && (children.get(t.id) ?? []).every(removable);
    memo.set(t.id, result);
    return result;
  };
  // Deepest first, so every child goes before its parent.
  const doomed = tasks.filter(removable).sort((a, b) => depth(byId, b) - depth(byId, a));
  const removed: string[] = [];
  for (const t of doomed) {
    try {
      await removeOne(ctx, t.id);
      removed.push(t.id);
    } catch (error) {
      if (!(error instanceof TaskRunningError)) throw error;
    }
  }
  return { removed, staging: await sweepStaging(ctx) };
}

function depth(byId: Map<string, TaskSummary>, t: TaskSummary): number {
  let d = 0;
  for (let p = t.parent; p !== null; p = byId.get(p)?.parent ?? null) d++;
  return d;
}

async function sweepStaging(ctx: StoreContext): Promise<number> {
  let swept = 0;
  const cutoff = ctx.now() - STORE_TIMING.stagingMaxAgeMs;
  for (const name of await readdir(ctx.stagingDir)) {
    const path = join(ctx.stagingDir, name);
    try {
      const old = (await stat(path)).mtimeMs <= cutoff;
      if (name.startsWith(REMOVAL_PREFIX) || old) {
        await rm(path, { recursive: true, force: true });
        swept++;
      }
    } catch {
      // Renamed into place or removed by another process meanwhile.
    }
  }
  return swept;
}
