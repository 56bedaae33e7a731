// The data directory's spend ledger: one file per UTC day, `spend/<YYYY-MM-DD>.jsonl`, one line
// per increase of one task's spend. Every executor appends to it at once: a line is one write
// with O_APPEND, which a local file system lands whole at the end, and under an exclusive
// flock(2) of the file, which keeps the look at the last byte (below) and the write together and
// holds where appends are not atomic (NFS). The day's total is the sum of its lines, which the
// daily cap reads.
//
// A line is whole or it does not count. A crash mid-write leaves a fragment without its newline;
// the next writer, under the lock, ends it first, and a fragment is never a JSON object (its
// closing brace is the line's last byte), so a reader ignores it. A reader never takes the lock:
// it reads only up to the last newline, and a line that is torn, not warden's, negative or past
// any real spend is ignored, so no line lowers the total.
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { TASK_ID } from "../../protocol/index.js";
import { ensureRealDir, NO_FOLLOW, tryFlock } from "../../store/index.js";
import { SpendLedgerBusyError } from "../errors.js";
import { SPEND_LIMITS } from "./limits.js";
import { cleanIncrease, type SpendTotals } from "./spendTotals.js";

/** The data directory's folder of ledger files. */
export const SPEND_DIR = "spend";

/** The UTC day of a time, as the ledger's file is named. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function ledgerPath(dataDir: string, day: string): string {
  return join(dataDir, SPEND_DIR, `${day}.jsonl`);
}

/** One line of the ledger: an increase of one task's spend. */
export interface LedgerEntry extends SpendTotals {
  /** ms since the epoch. */
  readonly at: number;
  readonly task: string;
}

const NEWLINE = 0x0a;

/**
 * The cost one line adds to the day, or undefined for a line that does not count: not a JSON
 * object, too long, without a task id, or with a cost that is not a finite number from 0 to
 * SPEND_LIMITS.maxRecordedUSD.
 */
export function ledgerLineCost(line: string): number | undefined {
  if (Buffer.byteLength(line) > SPEND_LIMITS.ledgerLineBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { task, costUSD } = value as Record<string, unknown>;
  if (typeof task !== "string" || !TASK_ID.test(task)) return undefined;
  if (typeof costUSD !== "number" || !Number.isFinite(costUSD)) return undefined;
  if (costUSD < 0 || costUSD > SPEND_LIMITS.maxRecordedUSD) return undefined;
  return costUSD;
}

/** The task a line that counts names (ledgerLineCost has checked it is one). */
function ledgerLineTask(line: string): string | undefined {
  const { task } = JSON.parse(line) as { task?: unknown };
  return typeof task === "string" ? task : undefined;
}

async function lockLedger(handle: FileHandle, path: string): Promise<void> {
  const until = Date.now() + SPEND_LIMITS.ledgerLockWaitMs;
  while (!tryFlock(handle.fd, "exclusive")) {
    if (Date.now() >= until) {
      throw new SpendLedgerBusyError(`the spend ledger ${path} stayed locked by another task`);
    }
    await sleep(SPEND_LIMITS.ledgerLockPollMs);
  }
}

/** Whether the file's last byte is a newline (an empty file counts as ended). */
async function endsWithNewline(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return true;
  const byte = Buffer.alloc(1);
  await handle.read(byte, 0, 1, size - 1);
  return byte[0] === NEWLINE;
}

/** Appends one entry to its day's file, durably; other writers wait on the lock meanwhile. */
export async function appendLedger(dataDir: string, entry: LedgerEntry): Promise<void> {
  const dir = join(dataDir, SPEND_DIR);
  ensureRealDir(dir);
  const path = ledgerPath(dataDir, utcDay(entry.at));
  const handle = await open(
    path,
    constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW,
    0o600,
  );
  try {
    await lockLedger(handle, path);
    const line = JSON.stringify(entry) + "\n";
    const text = (await endsWithNewline(handle)) ? line : "\n" + line;
    await handle.write(text);
    await handle.datasync();
  } finally {
    // Closing the descriptor drops the lock.
    await handle.close();
  }
}

/**
 * Follows the ledger of the current day, reading only what was appended since the last read.
 * Its total never goes down within a day: a file that shrank (someone cut it) keeps the total
 * read so far, and reading goes on from its new end.
 */
export class LedgerTail {
  #day = "";
  #offset = 0;
  #total = 0;
  /** The part of #total that `self`'s lines add. */
  #selfTotal = 0;
  /** The start of a line whose newline has not been read yet. */
  #partial: Buffer = Buffer.alloc(0);
  /** Inside a line too long to count, which is skipped up to its newline. */
  #skipping = false;
  #ignored = 0;

  /** `self`: the task whose own lines the tail keeps apart (its writer knows them sooner). */
  constructor(
    private readonly dataDir: string,
    private readonly self?: string,
  ) {}

  /** The UTC day last read, or "" before the first read. */
  get day(): string {
    return this.#day;
  }

  /** The day's total as last read, in US dollars. */
  get total(): number {
    return this.#total;
  }

  /** What `self`'s lines of the day add to the total, as last read. */
  get selfTotal(): number {
    return this.#selfTotal;
  }

  /** Lines of the day that did not count. */
  get ignored(): number {
    return this.#ignored;
  }

  /** Reads what was appended since the last call; a new UTC day starts from nothing. */
  async read(now: number): Promise<number> {
    const day = utcDay(now);
    if (day !== this.#day) {
      this.#day = day;
      this.#offset = 0;
      this.#total = 0;
      this.#selfTotal = 0;
      this.#partial = Buffer.alloc(0);
      this.#skipping = false;
    }
    let handle: FileHandle;
    try {
      handle = await open(ledgerPath(this.dataDir, day), constants.O_RDONLY | NO_FOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return this.#total;
      throw error;
    }
    try {
      const { size } = await handle.stat();
      if (size < this.#offset) {
        this.#offset = size;
        this.#partial = Buffer.alloc(0);
        this.#skipping = true;
      }
      const want = Math.min(size - this.#offset, SPEND_LIMITS.ledgerReadBytes);
      if (want <= 0) return this.#total;
      const chunk = Buffer.alloc(want);
      const { bytesRead } = await handle.read(chunk, 0, want, this.#offset);
      this.#offset += bytesRead;
      this.#take(chunk.subarray(0, bytesRead));
      return this.#total;
    } finally {
      await handle.close();
    }
  }

  #take(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end < 0) break;
      const piece = chunk.subarray(start, end);
      const line = this.#partial.length === 0 ? piece : Buffer.concat([this.#partial, piece]);
      this.#partial = Buffer.alloc(0);
      if (this.#skipping) this.#skipping = false;
      else this.#count(line);
      start = end + 1;
    }
    if (this.#skipping || start >= chunk.length) return;
    const rest = chunk.subarray(start);
    if (this.#partial.length + rest.length > SPEND_LIMITS.ledgerLineBytes) {
      this.#partial = Buffer.alloc(0);
      this.#skipping = true;
      this.#ignored++;
      return;
    }
    this.#partial = Buffer.concat([this.#partial, rest]);
  }

  #count(line: Buffer): void {
    if (line.length === 0) return;
    const text = line.toString("utf8");
    const cost = ledgerLineCost(text);
    if (cost === undefined) {
      this.#ignored++;
      return;
    }
    const increase = cleanIncrease(cost, SPEND_LIMITS.maxRecordedUSD);
    this.#total = Math.min(this.#total + increase, SPEND_LIMITS.maxRecordedUSD);
    if (this.self !== undefined && ledgerLineTask(text) === this.self) {
      this.#selfTotal = Math.min(this.#selfTotal + increase, SPEND_LIMITS.maxRecordedUSD);
    }
  }
}
