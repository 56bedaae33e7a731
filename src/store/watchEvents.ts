// The reading side of events.jsonl: an async iterator that yields every event after `since`
// exactly once and in order, whole lines only, waking on file system notifications. It never
// takes a lock: the file is only ever appended to in whole lines, and a torn tail is never
// consumed (reads always restart at the first byte not yet yielded).
import { constants, existsSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ChangeBell } from "./changeBell.js";
import { parseEventLine, type TaskEvent } from "./eventLog.js";
import { openNoFollow } from "./noFollow.js";
import type { TaskPaths } from "./taskDir.js";

export interface WatchOptions {
  /** Yield only events whose seq is above this (default 0: the whole history first). */
  since?: number;
  /** Ends the iteration quietly. */
  signal?: AbortSignal;
  /** Keep waiting for new events until the task finishes (default true); false stops at the end of the file. */
  follow?: boolean;
}

/** Bytes read per read(2): big enough to take a burst of events in one go. */
const READ_CHUNK = 256 * 1024;

class LineReader {
  #handle: FileHandle | undefined;
  /** The offset of the first byte not yet consumed: always the start of a line. */
  #pos = 0;
  readonly #buffer = Buffer.alloc(READ_CHUNK);

  constructor(private readonly path: string) {}

  /** Every whole line between the last call and the end of the file now. */
  async *lines(): AsyncGenerator<string> {
    if (this.#handle === undefined) {
      try {
        // A link in the file's place is refused (PLANTED_LINK): never read as the task's events.
        this.#handle = await openNoFollow(this.path, constants.O_RDONLY);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
    }
    for (;;) {
      const { bytesRead } = await this.#handle.read(this.#buffer, 0, READ_CHUNK, this.#pos);
      if (bytesRead === 0) return;
      const chunk = this.#buffer.subarray(0, bytesRead);
      const lastNewline = chunk.lastIndexOf(0x0a);
      if (lastNewline < 0) {
        // No whole line: a torn tail, or a line longer than any event may be. Skip the latter.
        if (bytesRead === READ_CHUNK) this.#pos += bytesRead;
        return;
      }
      let start = 0;
      while (start <= lastNewline) {
        const end = chunk.indexOf(0x0a, start);
        const line = chunk.toString("utf8", start, end);
        this.#pos += end + 1 - start;
        start = end + 1;
        yield line;
      }
      if (bytesRead < READ_CHUNK) return;
    }
  }

  async close(): Promise<void> {
    await this.#handle?.close();
    this.#handle = undefined;
  }
}

function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/**
 * Yields the task's events with seq above `since`, then (when following) each new one as it is
 * appended, until the task has finished and every event before its terminal record was yielded.
 * A task that is removed while watched ends the iteration.
 */
export async function* watchEvents(
  paths: TaskPaths,
  options: WatchOptions = {},
): AsyncGenerator<TaskEvent> {
  const { signal, follow = true } = options;
  let lastSeq = options.since ?? 0;
  const bell = new ChangeBell(paths.dir, signal);
  const reader = new LineReader(paths.events);
  try {
    for (;;) {
      if (isAborted(signal)) return;
      // Checked before reading: the executor appends every event before it writes terminal.json.
      const finished = existsSync(paths.terminal);
      for await (const line of reader.lines()) {
        const event = parseEventLine(line);
        if (event === undefined || event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        yield event;
        if (isAborted(signal)) return;
      }
      if (finished || !follow || !existsSync(paths.dir)) return;
      await bell.wait();
    }
  } finally {
    bell.close();
    await reader.close();
  }
}
