// The machine's queue of background runs, without a daemon. At most `maxRunning` of them run at
// once: each holds an exclusive flock(2) on one of the files slots/0 .. slots/<maxRunning-1>
// while it runs. A background runner that finds no free slot waits its turn: it holds a flock on
// a ticket in queue/ (named so that names sort in the order the tickets were taken) and on the
// task's queue.lock (which makes the task read `queued`), and takes a slot once fewer live
// tickets are ahead of it than slots are free. Every lock dies with its holder, so a killed
// waiter or runner never keeps a slot or a place; a ticket whose lock nobody holds is removed
// by whichever waiter sees it next.
import { closeSync, constants, readdirSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { FILE_MODE } from "./atomicFile.js";
import { DATA_DIRS } from "./dataDir.js";
import { AlreadyQueuedError } from "./errors.js";
import { tryFlock, unflock } from "./flock.js";
import { STORE_TIMING } from "./limits.js";
import { openNoFollowSync } from "./noFollow.js";
import { TaskPaths } from "./taskDir.js";

/** The slots and place a background run holds; release() gives them back before the process ends. */
export interface RunTurn {
  release(): void;
}

export interface TurnOptions {
  dataDir: string;
  id: string;
  /** How many background runs may hold a slot at once, as this runner read it. */
  maxRunning: number;
  /** Whether the task no longer needs a turn (finished, cancelled, past its deadline). */
  isOver: () => Promise<boolean>;
  /** Told how many live tickets are ahead each time that number changes. */
  onWait?: (ahead: number) => void;
  now?: () => number;
}

/** `fn`, run the first time the result is called and never again. */
function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}

/** Opens `path` and locks it exclusively without blocking; undefined when another holds it. */
function lockFile(path: string): number | undefined {
  const fd = openNoFollowSync(path, constants.O_RDWR | constants.O_CREAT, FILE_MODE);
  try {
    if (tryFlock(fd, "exclusive")) return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  closeSync(fd);
  return undefined;
}

/** Whether some process holds a lock on `path`: a shared lock is refused only then. */
function isHeld(path: string): boolean {
  let fd: number;
  try {
    fd = openNoFollowSync(path, constants.O_RDONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  try {
    if (!tryFlock(fd, "shared")) return true;
    unflock(fd);
    return false;
  } finally {
    closeSync(fd);
  }
}

/** The live tickets of the queue, in order; tickets whose waiter died are removed. */
function liveTickets(queueDir: string): string[] {
  const live: string[] = [];
  for (const name of readdirSync(queueDir).sort()) {
    if (name.startsWith(".")) continue;
    const path = join(queueDir, name);
    if (isHeld(path)) live.push(name);
    else removeIfThere(path);
  }
  return live;
}

/** Unlinks `path`; another waiter may have removed it first. */
function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

function slotPath(dataDir: string, slot: number): string {
  return join(dataDir, DATA_DIRS.slots, String(slot));
}

/** Takes the first free slot below `maxRunning`; undefined when every one is held. */
function takeSlot(dataDir: string, maxRunning: number): number | undefined {
  for (let slot = 0; slot < maxRunning; slot++) {
    const fd = lockFile(slotPath(dataDir, slot));
    if (fd !== undefined) return fd;
  }
  return undefined;
}

function freeSlots(dataDir: string, maxRunning: number): number {
  let free = 0;
  for (let slot = 0; slot < maxRunning; slot++) {
    if (!isHeld(slotPath(dataDir, slot))) free++;
  }
  return free;
}

/**
 * A ticket that sorts after every ticket taken before it: the time, then the task's id. It is
 * locked under a dot name and renamed into place, so no waiter ever sees it unlocked.
 */
function takeTicket(queueDir: string, id: string, now: number): { name: string; fd: number } {
  const name = `${String(now).padStart(16, "0")}-${id}`;
  const staging = join(queueDir, `.${name}`);
  const fd = lockFile(staging);
  if (fd === undefined) throw new AlreadyQueuedError(`task ${id} is already in the queue`);
  renameSync(staging, join(queueDir, name));
  return { name, fd };
}

/**
 * Waits until the task may run: returns its turn (a slot held), or undefined when the task no
 * longer needs one. Refuses a task another process queues already (ALREADY_QUEUED).
 */
export async function awaitTurn(options: TurnOptions): Promise<RunTurn | undefined> {
  const { dataDir, id, maxRunning } = options;
  const queueDir = join(dataDir, DATA_DIRS.queue);
  // Nobody waits and a slot is free: the task runs at once, and never reads `queued`.
  if (liveTickets(queueDir).length === 0) {
    const slot = takeSlot(dataDir, maxRunning);
    if (slot !== undefined)
      return {
        release: once(() => {
          closeSync(slot);
        }),
      };
  }
  const queueLock = lockFile(new TaskPaths(dataDir, id).queueLock);
  if (queueLock === undefined) throw new AlreadyQueuedError(`task ${id} is already in the queue`);
  let ticket: { name: string; fd: number } | undefined;
  const leaveQueue = (): void => {
    if (ticket === undefined) return;
    removeIfThere(join(queueDir, ticket.name));
    closeSync(ticket.fd);
    ticket = undefined;
  };
  try {
    ticket = takeTicket(queueDir, id, (options.now ?? Date.now)());
    let lastAhead: number | undefined;
    for (;;) {
      if (await options.isOver()) {
        leaveQueue();
        closeSync(queueLock);
        return undefined;
      }
      const ahead = liveTickets(queueDir).indexOf(ticket.name);
      if (ahead < freeSlots(dataDir, maxRunning)) {
        const slot = takeSlot(dataDir, maxRunning);
        if (slot !== undefined) {
          leaveQueue();
          return {
            release: once(() => {
              closeSync(slot);
              closeSync(queueLock);
            }),
          };
        }
      }
      if (ahead !== lastAhead) options.onWait?.(ahead);
      lastAhead = ahead;
      await sleep(STORE_TIMING.queuePollMs);
    }
  } catch (error) {
    leaveQueue();
    closeSync(queueLock);
    throw error;
  }
}
