// One of the agent's output streams into a file in the scratch dir, cut at its limit. Past the
// limit the stream is still read and the bytes dropped, so the agent never blocks on a full pipe.
import type { FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import { errorMessage } from "../lang/index.js";

export interface Captured {
  /** Bytes in the file: at most the limit. */
  readonly kept: number;
  /** Bytes the stream carried, kept or not. */
  readonly seen: number;
  readonly truncated: boolean;
  /** Why the file stopped growing before the limit (a full disk), or why reading stopped. */
  readonly failure: string | undefined;
}

export interface Capture {
  /** Settles once the stream ended or was stopped; never rejects. */
  readonly done: Promise<Captured>;
  /**
   * Stops reading (for a pipe that a process the runner cannot reach still holds open) and
   * settles `done` with what was written.
   */
  stop(): void;
}

/**
 * Starts reading at once, before this returns: Node discards a child's output that nobody reads
 * by the time it exits, so the file is opened before the agent starts, not after. Closes `file`.
 * A write that fails (a full disk) ends the file there, and the stream is still read to its end.
 */
export function captureOutput(
  stream: Readable,
  file: FileHandle,
  limit: number,
  onChunk?: (chunk: Buffer) => void,
): Capture {
  // An object, so that the reader below sees what stop() sets.
  const state = { stopped: false };
  const done = (async (): Promise<Captured> => {
    let kept = 0;
    let seen = 0;
    let failure: string | undefined;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        seen += chunk.length;
        onChunk?.(chunk);
        const room = failure === undefined ? limit - kept : 0;
        if (room <= 0) continue;
        const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
        try {
          await file.write(part);
          kept += part.length;
        } catch (error) {
          failure = `could not write: ${errorMessage(error)}`;
        }
      }
    } catch (error) {
      // A stopped stream ends its iteration with a premature-close error: that is the stop.
      if (!state.stopped) failure ??= `could not read: ${errorMessage(error)}`;
    } finally {
      await file.close().catch(() => undefined);
    }
    return { kept, seen, truncated: seen > kept, failure };
  })();
  return {
    done,
    stop: () => {
      state.stopped = true;
      stream.destroy();
    },
  };
}
