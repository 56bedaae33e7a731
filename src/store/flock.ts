// flock(2) on an open file descriptor: the kernel drops the lock when the last descriptor of the
// open file goes, including when the holding process dies, so no lock outlives its holder.
import { createRequire } from "node:module";
import type fsExtModule from "fs-ext";

/**
 * fs-ext, loaded on the first lock rather than with the store: it is a native addon, and loading
 * it costs every `warden` process a few milliseconds though most verbs never take or probe a lock.
 * Node's require keeps the module once loaded, so later calls cost a lookup.
 */
function fsExt(): typeof fsExtModule {
  return createRequire(import.meta.url)("fs-ext") as typeof fsExtModule;
}

/** Which lock to take: exclusive for a holder, shared for a reader that only probes. */
export type LockMode = "exclusive" | "shared";

function isContention(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "EAGAIN" || code === "EWOULDBLOCK";
}

/**
 * Tries to lock `fd` without blocking. Returns false when another open file holds a conflicting
 * lock; throws for any other failure (a bad descriptor, a file system without locks).
 */
export function tryFlock(fd: number, mode: LockMode): boolean {
  try {
    fsExt().flockSync(fd, mode === "exclusive" ? "exnb" : "shnb");
    return true;
  } catch (error) {
    if (isContention(error)) return false;
    throw error;
  }
}

/** Drops the lock on `fd`. Closing the descriptor drops it too; this makes the moment explicit. */
export function unflock(fd: number): void {
  fsExt().flockSync(fd, "un");
}
