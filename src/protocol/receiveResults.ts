// The host's side of the results archive. The bytes come from a sandbox that may be hostile:
// every entry is checked from its header before its body is read, bodies go straight to disk,
// and any refusal leaves nothing behind.
import { constants } from "node:fs";
import { open, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { BadResultsError } from "./errors.js";
import { LIMITS, RESULT_LIMITS } from "./limits.js";
import { RESULT_FILE_NAMES, RESULT_FILES, type ResultFileName } from "./names.js";
import { quote } from "./quote.js";
import { parseResult, type Result } from "./result.js";
import { BLOCK, readTarHeader } from "./tarHeader.js";
import { workspaceBundleName } from "./workspaces.js";

export interface ReceivedFile {
  /** dir/<name>, created by receiveResults. */
  path: string;
  bytes: number;
}

export interface ReceivedResults {
  result: Result;
  /** Every file the archive held, result.json included. */
  files: Partial<Record<ResultFileName, ReceivedFile>>;
  /** The bundle of changes of each bound workspace that sent one, by the workspace's name. */
  workspaceFiles: Record<string, ReceivedFile>;
}

export interface ReceiveOptions {
  /** Where the files go; it must exist, and none of them may be there yet. */
  dir: string;
  /** The files the host asks for (all when absent); result.json is always wanted. */
  want?: readonly ResultFileName[];
  /** Tighter limits than RESULT_LIMITS; a looser one is ignored, the contract's limit holds. */
  limits?: Partial<Record<ResultFileName, number>>;
  /**
   * The names of the workspaces bound beside the task's own repository: the archive may carry a
   * bundle of changes for each (workspaceBundleName), and for no other. Each is bound by the
   * limit of changes.bundle, and all bundles together by LIMITS.allChangesBytes.
   */
  workspaces?: readonly string[];
  /** A tighter bound than LIMITS.allChangesBytes on all bundles of changes together. */
  allChangesBytes?: number;
}

/**
 * Bytes gathered before one write to disk: fewer system calls, and a bound on memory. One batch
 * is written while the next is gathered, so at most two are held.
 */
const WRITE_BATCH_BYTES = 1024 * 1024;

/**
 * Bytes written to a file between syncs started in the background while the rest arrives. The
 * disk then works while the stream is read, instead of taking a whole large file at the end;
 * the sync that makes the file durable still comes after its last byte.
 */
const EARLY_SYNC_BYTES = 64 * 1024 * 1024;

/** tar ends with two zero blocks; an archive without them was cut short. */
const END_MARKER_BYTES = 2 * BLOCK;

const ALLOWED: ReadonlySet<string> = new Set(RESULT_FILE_NAMES);

function refuse(message: string): BadResultsError {
  return new BadResultsError(message, {
    hint: "the sandbox sent results warden does not take; see the guest log",
  });
}

function isAllowed(name: string): name is ResultFileName {
  return ALLOWED.has(name);
}

/** An entry being written: its file, what is left of its body and padding, what is batched. */
interface Entry {
  name: string;
  /** The bound workspace whose changes this entry carries, when it is one's. */
  workspace: string | undefined;
  file: FileHandle;
  path: string;
  size: number;
  left: number;
  padding: number;
  batch: Uint8Array[];
  batchBytes: number;
  /** The write of the previous batch, in flight while this one is gathered. */
  writing: Promise<void>;
  /** Bytes of the body handed to writes so far: where the next batch goes. */
  written: number;
  /** The last background sync, whether it is still running, and the bytes written since. */
  syncing: Promise<void>;
  syncBusy: boolean;
  unsynced: number;
  /** result.json is kept in memory too, to be parsed. */
  kept: Uint8Array[] | undefined;
}

/** Writes `buffers` at `position`: each batch names its place, so no write depends on another's. */
async function writeAll(file: FileHandle, buffers: Uint8Array[], position: number): Promise<void> {
  let pending = buffers;
  let at = position;
  while (pending.length > 0) {
    const { bytesWritten } = await file.writev(pending, at);
    at += bytesWritten;
    let skip = bytesWritten;
    const rest: Uint8Array[] = [];
    for (const buffer of pending) {
      if (skip >= buffer.length) skip -= buffer.length;
      else {
        rest.push(buffer.subarray(skip));
        skip = 0;
      }
    }
    pending = rest;
  }
}

/**
 * The receiving of one archive: a state machine fed chunk by chunk. Between chunks it holds at
 * most one header block, one write batch, and result.json.
 */
class Receiver {
  private readonly header = Buffer.alloc(BLOCK);
  private headerFilled = 0;
  private entry: Entry | undefined;
  /** Zero bytes seen after result.json; undefined until result.json has been read. */
  private trailer: number | undefined;
  private resultBytes: Buffer | undefined;
  readonly files: Partial<Record<ResultFileName, ReceivedFile>> = {};
  readonly workspaceFiles: Record<string, ReceivedFile> = {};
  /** The workspace of each results file name a bound workspace's bundle may come under. */
  private readonly workspaceBundles = new Map<string, string>();
  /** Bytes of bundles of changes the headers so far claimed, all workspaces together. */
  private changesClaimed = 0;
  private readonly allChangesLimit: number;
  /** Every path created, for the removal on refusal (an open entry's is here too). */
  readonly created: string[] = [];
  private readonly want: ReadonlySet<ResultFileName>;
  private readonly limits: Record<ResultFileName, number>;

  constructor(
    private readonly dir: string,
    options: ReceiveOptions,
  ) {
    this.want = new Set([...(options.want ?? RESULT_FILE_NAMES), RESULT_FILES.result]);
    const limits = { ...RESULT_LIMITS } as Record<ResultFileName, number>;
    for (const name of RESULT_FILE_NAMES) {
      const tighter = options.limits?.[name];
      if (tighter !== undefined && tighter >= 0 && tighter < limits[name]) limits[name] = tighter;
    }
    this.limits = limits;
    const tighter = options.allChangesBytes;
    this.allChangesLimit =
      tighter !== undefined && tighter >= 0 && tighter < LIMITS.allChangesBytes
        ? tighter
        : LIMITS.allChangesBytes;
    for (const name of options.workspaces ?? []) {
      this.workspaceBundles.set(workspaceBundleName(name), name);
    }
  }

  async push(chunk: Uint8Array): Promise<void> {
    let at = 0;
    while (at < chunk.length) {
      if (this.trailer !== undefined) {
        this.readTrailer(chunk.subarray(at));
        return;
      }
      const entry = this.entry;
      if (entry === undefined) {
        const take = Math.min(BLOCK - this.headerFilled, chunk.length - at);
        this.header.set(chunk.subarray(at, at + take), this.headerFilled);
        this.headerFilled += take;
        at += take;
        if (this.headerFilled === BLOCK) {
          this.headerFilled = 0;
          await this.startEntry();
        }
      } else if (entry.left > 0) {
        const take = Math.min(entry.left, chunk.length - at);
        const body = chunk.subarray(at, at + take);
        at += take;
        entry.left -= take;
        entry.batch.push(body);
        entry.batchBytes += take;
        entry.kept?.push(body);
        if (entry.batchBytes >= WRITE_BATCH_BYTES) await this.flush(entry);
        if (entry.left === 0 && entry.padding === 0) await this.endEntry(entry);
      } else {
        // The padding of the last block is skipped unread: it is part of the entry, not after it.
        const take = Math.min(entry.padding, chunk.length - at);
        at += take;
        entry.padding -= take;
        if (entry.padding === 0) await this.endEntry(entry);
      }
    }
  }

  /** At the end of the stream: everything must have come, and the end marker after it. */
  finish(): Result {
    if (this.entry !== undefined || this.headerFilled > 0) {
      throw refuse("the results archive is cut short in the middle of an entry");
    }
    if (this.resultBytes === undefined) throw refuse("the results archive has no result.json");
    if ((this.trailer ?? 0) < END_MARKER_BYTES) {
      throw refuse("the results archive is cut short after result.json (no end marker)");
    }
    return parseResult(this.resultBytes);
  }

  /** Closes what is open and removes every file this receiver created. */
  async discard(): Promise<void> {
    const entry = this.entry;
    this.entry = undefined;
    if (entry !== undefined) {
      await Promise.all([entry.writing, entry.syncing]).catch(() => undefined);
      await entry.file.close().catch(() => undefined);
    }
    await Promise.all(this.created.map((path) => rm(path, { force: true })));
  }

  private readTrailer(bytes: Uint8Array): void {
    const seen = (this.trailer ?? 0) + bytes.length;
    if (seen > LIMITS.archiveTrailerBytes) {
      throw refuse(
        `the results archive goes on for over ${LIMITS.archiveTrailerBytes} bytes after result.json`,
      );
    }
    if (bytes.some((b) => b !== 0)) throw refuse("the results archive has data after result.json");
    this.trailer = seen;
  }

  /** Checks a header in full before a byte of its body is read, then creates the file. */
  private async startEntry(): Promise<void> {
    const header = readTarHeader(this.header);
    if (header.kind === "end") throw refuse("the results archive ends before result.json");
    const name = header.name.toString("latin1");
    if (header.kind === "other") {
      throw refuse(`the results archive has ${header.what}, ${quote(header.name)}`);
    }
    const workspace = this.workspaceBundles.get(name);
    if (workspace !== undefined) {
      if (this.workspaceFiles[workspace] !== undefined) {
        throw refuse(`the results archive has ${name} twice`);
      }
    } else if (!isAllowed(name)) {
      const what = name.includes("/") || name === ".." ? "a path" : "a name";
      throw refuse(
        `the results archive has ${what} that is not a result file: ${quote(header.name)}`,
      );
    } else {
      if (!this.want.has(name))
        throw refuse(`the results archive has ${name}, which was not asked for`);
      if (this.files[name] !== undefined) throw refuse(`the results archive has ${name} twice`);
    }
    const limit =
      this.limits[workspace === undefined ? (name as ResultFileName) : "changes.bundle"];
    if (header.size > limit) {
      throw refuse(
        `${name} in the results claims ${header.size} bytes, over its limit of ${limit}`,
      );
    }
    if (workspace !== undefined || name === RESULT_FILES.changes) {
      this.changesClaimed += header.size;
      if (this.changesClaimed > this.allChangesLimit) {
        throw refuse(
          `the bundles of changes in the results claim ${this.changesClaimed} bytes together, over their limit of ${this.allChangesLimit}`,
        );
      }
    }
    const path = join(this.dir, name);
    // Exclusive, and never through a symlink: a file that is already there is not overwritten.
    const file = await open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    this.created.push(path);
    const padding = (BLOCK - (header.size % BLOCK)) % BLOCK;
    const entry: Entry = {
      name,
      workspace,
      file,
      path,
      size: header.size,
      left: header.size,
      padding,
      batch: [],
      batchBytes: 0,
      writing: Promise.resolve(),
      written: 0,
      syncing: Promise.resolve(),
      syncBusy: false,
      unsynced: 0,
      kept: name === RESULT_FILES.result ? [] : undefined,
    };
    this.entry = entry;
    if (header.size === 0) await this.endEntry(entry);
  }

  /**
   * Starts writing the gathered batch once the previous write is done (a failure of that one is
   * thrown here), and starts a background sync every EARLY_SYNC_BYTES.
   */
  private async flush(entry: Entry): Promise<void> {
    await entry.writing;
    const batch = entry.batch;
    const bytes = entry.batchBytes;
    entry.batch = [];
    entry.batchBytes = 0;
    entry.writing = writeAll(entry.file, batch, entry.written);
    entry.written += bytes;
    // Awaited at the next flush or at the entry's end; this only keeps it from being unhandled.
    entry.writing.catch(() => undefined);
    entry.unsynced += bytes;
    if (entry.unsynced >= EARLY_SYNC_BYTES && !entry.syncBusy) {
      entry.unsynced = 0;
      entry.syncBusy = true;
      // Chained to the last sync, so a failure of any sync is still thrown at the entry's end.
      entry.syncing = Promise.all([entry.syncing, entry.writing])
        .then(() => entry.file.datasync())
        .finally(() => {
          entry.syncBusy = false;
        });
      entry.syncing.catch(() => undefined);
    }
  }

  private async endEntry(entry: Entry): Promise<void> {
    await this.flush(entry);
    await Promise.all([entry.writing, entry.syncing]);
    // Synced after the last byte, before the host records the task as finished, so the record
    // never outlives the files.
    await entry.file.datasync();
    this.entry = undefined;
    await entry.file.close();
    const received = { path: entry.path, bytes: entry.size };
    if (entry.workspace !== undefined) this.workspaceFiles[entry.workspace] = received;
    else this.files[entry.name as ResultFileName] = received;
    if (entry.kept !== undefined) {
      this.resultBytes = Buffer.concat(entry.kept, entry.size);
      this.trailer = 0;
    }
  }
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  throw new TypeError("results are received from a byte stream, not a text or object stream");
}

/**
 * Receives a results archive from `stream` into `options.dir`, checking every entry against the
 * contract (DESIGN.md "The contract"): regular files with bare names that were asked for, each
 * once and within its limit (checked from the header, before the body is read), result.json
 * last, then nothing but the zero blocks that end a tar. Each file is created exclusively with
 * mode 0600, never through a symlink, streamed to disk and synced. result.json is also read into
 * memory and parsed.
 *
 * Pax and GNU extension headers are refused rather than read: the guest never writes one.
 *
 * On any refusal (BadResultsError) or failure it removes every file it created, destroys the
 * stream so the producer cannot block on a full pipe, and throws. It reads the stream to its
 * end: a producer that sends its archive and then holds the stream open is for the caller's
 * timeout to stop.
 */
export async function receiveResults(
  stream: Readable,
  options: ReceiveOptions,
): Promise<ReceivedResults> {
  const receiver = new Receiver(options.dir, options);
  try {
    // Leaving the loop by a throw destroys the stream.
    for await (const chunk of stream) await receiver.push(toBytes(chunk));
    const result = receiver.finish();
    return { result, files: receiver.files, workspaceFiles: receiver.workspaceFiles };
  } catch (error) {
    stream.destroy();
    await receiver.discard();
    throw error;
  }
}
