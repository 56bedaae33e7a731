// A task's spend record, `tasks/<id>/spend.json`: what the relay metered for it over all its
// attaches, so an interrupted task that runs again goes on from what it spent, and lists show
// the cost of a running task. Only the task's executor writes it (it holds attach.lock), always
// whole and atomically, so a reader sees the old totals or the new ones.
import { closeSync, constants, openSync, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { NO_FOLLOW, writeFileAtomic } from "../../store/index.js";
import { SpendRecordDamagedError } from "../errors.js";
import { SPEND_LIMITS } from "./limits.js";
import { NO_SPEND, readTotals, type SpendTotals } from "./spendTotals.js";

/** A record's version: a reader refuses one it does not know rather than guess at it. */
const RECORD_VERSION = 1;

export interface SpendRecord extends SpendTotals {
  readonly version: typeof RECORD_VERSION;
  /** When it was last written, ms since the epoch. */
  readonly updatedAt: number;
}

export type RecordRead =
  { kind: "absent" } | { kind: "read"; totals: SpendTotals } | { kind: "damaged"; why: string };

/** The bytes of a file, never through a link, at most `limit` (more: undefined). */
async function readSmallFile(path: string, limit: number): Promise<Buffer | undefined> {
  const handle = await open(path, constants.O_RDONLY | NO_FOLLOW);
  try {
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) return undefined;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** The record's totals, parsed defensively: a record that is not warden's is `damaged`. */
export function parseRecord(bytes: Buffer): RecordRead {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { kind: "damaged", why: "it is not JSON" };
  }
  if ((value as { version?: unknown } | null)?.version !== RECORD_VERSION) {
    return { kind: "damaged", why: "it has no version warden knows" };
  }
  const totals = readTotals(value);
  if (totals === undefined) {
    return { kind: "damaged", why: "a total is missing, negative or past any real spend" };
  }
  return { kind: "read", totals };
}

/** The bytes of a file, read at once, never through a link; undefined past `limit`. */
function readSmallFileSync(path: string, limit: number): Buffer | undefined {
  const fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  try {
    const buffer = Buffer.alloc(limit + 1);
    let length = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) return undefined;
    }
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a record at once, for the gate's check of a tree, which the relay asks synchronously:
 * a few hundred bytes from the page cache. A missing file is `absent`, never an error.
 */
export function readSpendRecordSync(path: string): RecordRead {
  let bytes: Buffer | undefined;
  try {
    bytes = readSmallFileSync(path, SPEND_LIMITS.recordBytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "absent" };
    return { kind: "damaged", why: code === "ELOOP" ? "it is a symbolic link" : String(code) };
  }
  if (bytes === undefined) return { kind: "damaged", why: "it is too large" };
  return parseRecord(bytes);
}

/** Reads a record; a missing file is `absent`, never an error. */
export async function readSpendRecord(path: string): Promise<RecordRead> {
  let bytes: Buffer | undefined;
  try {
    bytes = await readSmallFile(path, SPEND_LIMITS.recordBytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { kind: "absent" };
    if (code === "ELOOP") return { kind: "damaged", why: "it is a symbolic link" };
    throw error;
  }
  if (bytes === undefined) return { kind: "damaged", why: "it is too large" };
  return parseRecord(bytes);
}

/**
 * The totals a task starts an attach from. A damaged record is refused, not read as zero: what
 * the task spent before is unknown, and starting from nothing would lower a recorded cost.
 */
export async function startingTotals(path: string): Promise<SpendTotals> {
  const read = await readSpendRecord(path);
  switch (read.kind) {
    case "absent":
      return NO_SPEND;
    case "read":
      return read.totals;
    case "damaged":
      throw new SpendRecordDamagedError(`the spend record ${path} is damaged: ${read.why}`);
  }
}

export async function writeSpendRecord(
  path: string,
  totals: SpendTotals,
  now: number,
): Promise<void> {
  const record: SpendRecord = { version: RECORD_VERSION, updatedAt: now, ...totals };
  await writeFileAtomic(path, JSON.stringify(record) + "\n");
}

/** What a task's record says it spent, for lists and `show`; undefined when none or damaged. */
export async function recordedSpend(path: string): Promise<SpendTotals | undefined> {
  const read = await readSpendRecord(path).catch(() => undefined);
  return read?.kind === "read" ? read.totals : undefined;
}
