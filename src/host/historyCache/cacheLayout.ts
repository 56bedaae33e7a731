// Where a repository's history cache lives in the data directory. One cache per repository,
// named by a digest of its git directory, so that two repositories never share objects.
import { createHash } from "node:crypto";
import { join } from "node:path";

/** The data directory's folder of history caches. */
export const HISTORY_DIR = "history";

/** A generation's directory name: `gen-` and a random suffix, never a path. */
export const GENERATION = /^gen-[0-9a-f]{16}$/;

export interface CacheLayout {
  /** The cache's own directory (0700), under HISTORY_DIR. */
  readonly dir: string;
  /** Held exclusively by whoever checks or changes the cache. */
  readonly updateLock: string;
  /**
   * Held shared by every task whose sandbox may read the cache, exclusively by whoever removes
   * a generation; its modification time is when a task last took it.
   */
  readonly useLock: string;
  /** What the host wrote: the generation, its bases and its files' fingerprints. Written last. */
  readonly state: string;
  /** The bare repository of one generation. */
  generation(name: string): string;
}

export function cacheLayout(dataDir: string, gitDir: string): CacheLayout {
  const key = createHash("sha256").update(gitDir).digest("hex").slice(0, 32);
  return cacheLayoutAt(join(dataDir, HISTORY_DIR, key));
}

export function cacheLayoutAt(dir: string): CacheLayout {
  return {
    dir,
    updateLock: join(dir, "update.lock"),
    useLock: join(dir, "use.lock"),
    state: join(dir, "state.json"),
    generation: (name) => join(dir, name),
  };
}
