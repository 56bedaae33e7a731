// `warden gc` for history caches: a cache that no task holds and that no task has used for
// `olderThan` is removed whole; in every other cache nobody holds, the generations a rebuild left
// behind are removed. A cache some task holds is never touched: its sandbox may be reading it.
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { cacheLayoutAt, HISTORY_DIR } from "./cacheLayout.js";
import { tryLock } from "./cacheLock.js";
import { removeStaleGenerations } from "./historyLease.js";

export interface TrimOutcome {
  /** The caches removed whole, as their directories. */
  removed: string[];
  /** The caches kept because a task holds them. */
  inUse: string[];
}

export async function trimHistoryCaches(
  dataDir: string,
  options: { olderThan: number; now: number },
): Promise<TrimOutcome> {
  const root = join(dataDir, HISTORY_DIR);
  const names = await readdir(root).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  });
  const outcome: TrimOutcome = { removed: [], inUse: [] };
  for (const name of names) {
    const layout = cacheLayoutAt(join(root, name));
    const update = tryLock(layout.updateLock, "exclusive");
    if (update === undefined) {
      outcome.inUse.push(layout.dir);
      continue;
    }
    try {
      const use = tryLock(layout.useLock, "exclusive");
      if (use === undefined) {
        outcome.inUse.push(layout.dir);
        continue;
      }
      try {
        const lastUse = (await stat(layout.useLock)).mtimeMs;
        if (options.now - lastUse >= options.olderThan) {
          // Removed while both locks are held: a task that opened the lock files meanwhile sees
          // they are no longer at their paths once it gets them, and starts again.
          await rm(layout.dir, { recursive: true, force: true });
          outcome.removed.push(layout.dir);
        } else {
          await removeStaleGenerations(layout);
        }
      } finally {
        use.close();
      }
    } finally {
      update.close();
    }
  }
  return outcome;
}
