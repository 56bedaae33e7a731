// The bytes of a file that another process is still writing, as they come (`logs --follow`):
// read to the end, wait, read what was added, until the writer is done and the rest is read.
import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { linkRefusal } from "../store/index.js";

/** How often a followed file is looked at again: a log line shows within this. */
export const FOLLOW_POLL_MS = 250;

/** What one read takes: enough for a burst of log lines, small enough to print at once. */
const CHUNK_BYTES = 64 * 1024;

export interface FollowOptions {
  /** Whether the writer is done: after it says so, what is left is read and the follow ends. */
  readonly done: () => Promise<boolean>;
  readonly signal?: AbortSignal;
  /**
   * Called each time everything written so far has been yielded (and taken: the caller pulls
   * the next bytes only after it has dealt with the last), before the follow waits or ends.
   */
  readonly caughtUp?: () => void;
}

/** The file, never through a link planted in its place (PLANTED_LINK); undefined if absent. */
async function openIfThere(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw linkRefusal(error, path);
  }
}

/**
 * Yields the file's bytes from its start, then each addition, until `done()` is true and the
 * end is reached. A file that does not exist yet is waited for; a file that shrank was started
 * again (a new attempt of the task) and is read from its start. Ends early on `signal`.
 */
export async function* followFile(
  path: string,
  options: FollowOptions,
): AsyncGenerator<Buffer, void, undefined> {
  let file: FileHandle | undefined;
  let position = 0;
  const buffer = Buffer.alloc(CHUNK_BYTES);
  try {
    for (;;) {
      if (options.signal?.aborted === true) return;
      // Asked before reading, so that everything written before the writer was done is read.
      const finished = await options.done();
      file ??= await openIfThere(path);
      if (file !== undefined) {
        if ((await file.stat()).size < position) position = 0;
        for (;;) {
          const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, position);
          if (bytesRead === 0) break;
          position += bytesRead;
          yield Buffer.from(buffer.subarray(0, bytesRead));
        }
      }
      options.caughtUp?.();
      if (finished) return;
      await sleep(FOLLOW_POLL_MS, undefined, { signal: options.signal }).catch(() => undefined);
    }
  } finally {
    await file?.close();
  }
}
