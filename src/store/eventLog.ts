// events.jsonl as its one writer (the attach.lock holder) sees it: `{"seq","at","type",...}`
// lines appended whole, seq continuing across attaches, each line at most 32 KiB and the file at
// most 32 MiB, after which one `log_full` notice is written and further events are dropped.
import { closeSync, constants, fstatSync, ftruncateSync, readSync, writeSync } from "node:fs";
import { FILE_MODE } from "./atomicFile.js";
import { BadEventError, damaged, EventTooBigError, StoreCorruptError } from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import { openNoFollowSync } from "./noFollow.js";

/** Event types the store itself writes; an executor may not forge them. */
export const STORE_EVENTS = {
  /** An executor took the lock: `attempt`, `pid`, `host`. */
  attached: "attached",
  /** The terminal record is about to be written: `state`, `stoppedBy`. */
  finished: "finished",
  /** The executor suspended the task and is letting go: `reason`, `resumeAt` when it has one. */
  suspended: "suspended",
  /** The file reached its size bound; later events were dropped. */
  logFull: "log_full",
} as const;

const RESERVED_TYPES: ReadonlySet<string> = new Set(Object.values(STORE_EVENTS));
const RESERVED_FIELDS = new Set(["seq", "at", "type"]);
const EVENT_TYPE = /^[A-Za-z][A-Za-z0-9_.:-]*$/;
/** Room kept at the end of the file for the one log_full notice. */
export const NOTICE_RESERVE = 1024;
/** How much of the end of the file recovery reads at a time. */
const TAIL_CHUNK = 64 * 1024;

/** One event as written and as a watcher yields it. */
export interface TaskEvent {
  seq: number;
  /** ms since the epoch. */
  at: number;
  type: string;
  [field: string]: unknown;
}

/** Parses one line of events.jsonl; undefined for a line that is not an event. */
export function parseEventLine(line: string): TaskEvent | undefined {
  try {
    const value = JSON.parse(line) as Partial<TaskEvent> | null;
    if (
      value !== null &&
      typeof value === "object" &&
      Number.isSafeInteger(value.seq) &&
      typeof value.at === "number" &&
      typeof value.type === "string"
    ) {
      return value as TaskEvent;
    }
  } catch {
    // A damaged line: the caller skips it.
  }
  return undefined;
}

/** The appending side of events.jsonl. Owned by one Attachment. */
export class EventLog {
  #fd: number | undefined;
  #size: number;
  #seq: number;
  #full: boolean;

  private constructor(fd: number, size: number, seq: number, full: boolean) {
    this.#fd = fd;
    this.#size = size;
    this.#seq = seq;
    this.#full = full;
  }

  /**
   * Opens the log for appending, as the lock holder. A line left half written by a holder that
   * died is cut off (no watcher ever yielded it), and seq continues after the last whole event.
   * A link in the file's place is refused (PLANTED_LINK), never appended through.
   */
  static open(path: string): EventLog {
    const fd = openNoFollowSync(
      path,
      constants.O_RDWR | constants.O_CREAT | constants.O_APPEND,
      FILE_MODE,
    );
    try {
      const { size: rawSize } = fstatSync(fd);
      const { end, last } = recoverTail(fd, rawSize, path);
      if (end < rawSize) ftruncateSync(fd, end);
      const full = last?.type === STORE_EVENTS.logFull;
      return new EventLog(fd, end, last?.seq ?? 0, full);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  get lastSeq(): number {
    return this.#seq;
  }

  /**
   * Appends one event and returns its seq, or undefined when the file is full and the event was
   * dropped. Throws for an event the store does not take (too big, bad type, reserved field).
   */
  append(type: string, data: Record<string, unknown>, at: number): number | undefined {
    checkExecutorEventType(type);
    return this.appendStoreEvent(type, data, at);
  }

  /** Appends an event of any type, the store's own included. */
  appendStoreEvent(type: string, data: Record<string, unknown>, at: number): number | undefined {
    const seq = this.#seq + 1;
    const bytes = Buffer.from(eventLine(seq, at, type, data) + "\n");
    if (this.#full) return undefined;
    if (this.#size + bytes.length > STORE_LIMITS.eventsFileBytes - NOTICE_RESERVE) {
      const notice = Buffer.from(
        JSON.stringify({
          seq,
          at,
          type: STORE_EVENTS.logFull,
          limitBytes: STORE_LIMITS.eventsFileBytes,
        }) + "\n",
      );
      this.#write(notice);
      this.#seq = seq;
      this.#full = true;
      return undefined;
    }
    this.#write(bytes);
    this.#seq = seq;
    return seq;
  }

  close(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }

  /** One write(2) of a whole line; a short or failed write is cut back so no torn line stays. */
  #write(bytes: Buffer): void {
    const fd = this.#fd;
    if (fd === undefined) throw new Error("the event log is closed");
    let written = 0;
    try {
      written = writeSync(fd, bytes);
    } finally {
      if (written !== bytes.length) ftruncateSync(fd, this.#size);
    }
    if (written !== bytes.length) throw new Error("short write to events.jsonl");
    this.#size += written;
  }
}

/** Refuses an event type an executor may not write: malformed, or one of the store's own. */
export function checkExecutorEventType(type: string): void {
  checkEventType(type);
  if (RESERVED_TYPES.has(type)) {
    throw new BadEventError(`the event type ${type} is the store's own`);
  }
}

/** One event as its JSON line (newline excluded), checked: no reserved field, at most 32 KiB. */
export function eventLine(
  seq: number,
  at: number,
  type: string,
  data: Record<string, unknown>,
): string {
  for (const key of Object.keys(data)) {
    if (RESERVED_FIELDS.has(key)) throw new BadEventError(`an event may not set "${key}"`);
  }
  let line: string;
  try {
    line = JSON.stringify({ seq, at, type, ...data });
  } catch (error) {
    throw new BadEventError(`the event is not JSON: ${(error as Error).message}`);
  }
  const bytes = Buffer.byteLength(line);
  if (bytes > STORE_LIMITS.eventBytes) {
    throw new EventTooBigError(
      `an event of ${bytes} bytes is over the limit of ${STORE_LIMITS.eventBytes}`,
    );
  }
  return line;
}

function checkEventType(type: string): void {
  if (Buffer.byteLength(type) > STORE_LIMITS.eventTypeBytes || !EVENT_TYPE.test(type)) {
    throw new BadEventError(
      "an event type is a short name of letters, digits and _ . : - (starting with a letter)",
    );
  }
}

/**
 * Finds where the whole lines of the file end and the last event among them, reading backwards
 * from the end. Damaged lines (not events) are passed over; a file with no newline at all holds
 * only a torn first line.
 */
function recoverTail(
  fd: number,
  size: number,
  path: string,
): { end: number; last: TaskEvent | undefined } {
  let end = -1;
  let pos = size;
  let carry = Buffer.alloc(0);
  while (pos > 0) {
    const start = Math.max(0, pos - TAIL_CHUNK);
    const chunk = Buffer.alloc(pos - start);
    if (readSync(fd, chunk, 0, chunk.length, start) !== chunk.length) {
      throw new StoreCorruptError(damaged(path, "it shrank while being read"));
    }
    const buf = Buffer.concat([chunk, carry]);
    let nl = buf.lastIndexOf(0x0a);
    if (end < 0 && nl >= 0) end = start + nl + 1;
    // Walk the whole lines in this window from the last to the first.
    while (nl >= 0) {
      const prev = nl === 0 ? -1 : buf.lastIndexOf(0x0a, nl - 1);
      if (prev < 0 && start > 0) break;
      const event = parseEventLine(buf.toString("utf8", prev + 1, nl));
      if (event !== undefined) return { end, last: event };
      nl = prev;
    }
    carry = buf.subarray(0, nl < 0 ? buf.length : nl + 1);
    pos = start;
  }
  return { end: Math.max(end, 0), last: undefined };
}
