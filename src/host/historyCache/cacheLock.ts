// The cache's locks: flock(2) on a file in the cache's directory, so the kernel drops a lock
// whose holder died. A lock is taken by polling (fs-ext has no asynchronous wait that would not
// block the event loop), and once taken it is checked to still be the file at its path: `warden
// gc` removes a whole cache directory under both locks, and a task that opened the old file
// meanwhile must not believe it holds the new one.
import { closeSync, constants, fstatSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { tryFlock, type LockMode } from "../../store/index.js";
import { HistoryCacheBusyError } from "../errors.js";
import { HOST_LIMITS } from "../limits.js";

/** A lock held on a file; `close` drops it. */
export interface HeldLock {
  readonly fd: number;
  close(): void;
}

function openLockFile(path: string): number {
  return openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
}

/** True when `fd` is still the file named `path` (not one a remover unlinked meanwhile). */
function stillAtPath(fd: number, path: string): boolean {
  const held = fstatSync(fd);
  const named = statSync(path, { throwIfNoEntry: false });
  return named !== undefined && named.ino === held.ino && named.dev === held.dev;
}

/**
 * Takes `mode` on the lock file at `path` without waiting; undefined when someone holds a
 * conflicting lock or the file was replaced while it was being taken.
 */
export function tryLock(path: string, mode: LockMode): HeldLock | undefined {
  let fd: number;
  try {
    fd = openLockFile(path);
  } catch (error) {
    // `warden gc` removed the whole cache: make its directory again and try once more.
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return undefined;
  }
  const close = (): void => {
    closeSync(fd);
  };
  try {
    if (tryFlock(fd, mode) && stillAtPath(fd, path)) return { fd, close };
  } catch (error) {
    close();
    throw error;
  }
  close();
  return undefined;
}

/** Takes `mode` on the lock file at `path`, waiting at most HOST_LIMITS.historyLockWaitMs. */
export function waitLock(path: string, mode: LockMode, what: string): Promise<HeldLock> {
  return pollLock(path, what, () => tryLock(path, mode));
}

/**
 * Tries `attempt` until it gives something, at most HOST_LIMITS.historyLockWaitMs; the refusal
 * names the lock at `path` that kept it waiting.
 */
export async function pollLock<T>(
  path: string,
  what: string,
  attempt: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const until = Date.now() + HOST_LIMITS.historyLockWaitMs;
  for (;;) {
    const held = await attempt();
    if (held !== undefined) return held;
    if (Date.now() > until) {
      throw new HistoryCacheBusyError(
        `the history cache's ${what} lock (${path}) stayed taken for ${HOST_LIMITS.historyLockWaitMs / 60_000} minutes`,
      );
    }
    await sleep(HOST_LIMITS.historyLockPollMs);
  }
}
