// attach.lock: the one writer of a task is whoever holds an exclusive flock(2) on this file.
// The kernel releases it when the holder dies, so liveness never depends on a pid existing.
// Readers probe with a shared lock held for microseconds. An attacher that finds the lock taken
// asks for a shared lock itself: if that fails too, an exclusive holder (an executor) has it and
// the attacher gives up at once; if it succeeds, only probes were in the way, so it tries again.
import { closeSync, constants, ftruncateSync, writeSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { FILE_MODE } from "./atomicFile.js";
import { LockBusyError, lockTakenTooLong } from "./errors.js";
import { tryFlock, unflock } from "./flock.js";
import { STORE_TIMING } from "./limits.js";
import { readHolder, type LockHolder, type LockPurpose } from "./lockHolder.js";
import { openNoFollowSync } from "./noFollow.js";

/** What a probe of attach.lock found. */
export type LockProbe = "never_attached" | "held" | "free";

/** An exclusive flock held on an open lock file. */
export class HeldLock {
  #fd: number | undefined;
  constructor(
    fd: number,
    /** What this holder wrote into the file, when it is attach.lock. */
    readonly holder: LockHolder | undefined,
  ) {
    this.#fd = fd;
  }

  get held(): boolean {
    return this.#fd !== undefined;
  }

  release(): void {
    const fd = this.#fd;
    if (fd === undefined) return;
    this.#fd = undefined;
    try {
      unflock(fd);
    } finally {
      closeSync(fd);
    }
  }
}

export interface AcquireOptions {
  /**
   * Wait up to this long for an exclusive holder to let go (inbox.lock, waits/.lock, whose
   * holders are brief). Without it, an exclusive holder means "taken" at once (attach.lock).
   */
  waitMs?: number;
  /** Write a holder record into the file (attach.lock): who, and why. */
  holder?: { host: string; purpose: LockPurpose; now: number };
}

function writeHolderRecord(fd: number, path: string, who: NonNullable<AcquireOptions["holder"]>) {
  const previous = readHolder(path)?.attempt ?? 0;
  const holder: LockHolder = {
    pid: process.pid,
    host: who.host,
    startedAt: who.now,
    attempt: who.purpose === "run" ? previous + 1 : previous,
    purpose: who.purpose,
  };
  const bytes = Buffer.from(JSON.stringify(holder) + "\n");
  ftruncateSync(fd, 0);
  writeSync(fd, bytes, 0, bytes.length, 0);
  return holder;
}

/**
 * Takes the exclusive lock without ever blocking in the kernel. Returns undefined when another
 * holder has it (at once for attach.lock; after `waitMs` otherwise).
 */
export async function acquireLock(
  path: string,
  options: AcquireOptions = {},
): Promise<HeldLock | undefined> {
  // A link in the lock's place is refused: the holder record is written into the file it opens.
  const fd = openNoFollowSync(path, constants.O_RDWR | constants.O_CREAT, FILE_MODE);
  const waiting = options.waitMs !== undefined;
  const giveUpAt = Date.now() + (options.waitMs ?? STORE_TIMING.attachRetryMs);
  try {
    for (;;) {
      if (tryFlock(fd, "exclusive")) {
        const holder =
          options.holder === undefined ? undefined : writeHolderRecord(fd, path, options.holder);
        return new HeldLock(fd, holder);
      }
      if (!waiting) {
        // Only an exclusive holder refuses a shared lock: then the task is taken.
        if (!tryFlock(fd, "shared")) break;
        unflock(fd);
      }
      if (Date.now() >= giveUpAt) break;
      await sleep(STORE_TIMING.lockRetryPauseMs * (0.5 + Math.random()));
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  closeSync(fd);
  return undefined;
}

/**
 * Runs `fn` holding a lock whose holders are brief (inbox.lock, approvals.lock, waits/.lock); a
 * lock that stays taken for 10 s is LockBusyError, not a hang.
 */
export async function withBriefLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(path, { waitMs: STORE_TIMING.fileLockTimeoutMs });
  if (lock === undefined) throw new LockBusyError(lockTakenTooLong(path));
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

/** Whether an exclusive holder has the lock now, taking a shared lock for a moment to see. */
export function probeLock(path: string): LockProbe {
  let fd: number;
  try {
    fd = openNoFollowSync(path, constants.O_RDONLY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return "never_attached";
    throw error;
  }
  try {
    if (!tryFlock(fd, "shared")) return "held";
    unflock(fd);
    return "free";
  } finally {
    closeSync(fd);
  }
}

/**
 * The record of whoever holds the lock now. A holder that has only just taken the lock may not
 * have written its record yet, so an empty one is read again for a moment before it counts.
 */
export async function readCurrentHolder(path: string): Promise<LockHolder | undefined> {
  const until = Date.now() + STORE_TIMING.holderRecordWaitMs;
  for (;;) {
    await sleep(STORE_TIMING.lockRetryPauseMs);
    if (probeLock(path) !== "held") return undefined;
    const holder = readHolder(path);
    if (holder !== undefined || Date.now() >= until) return holder;
  }
}
