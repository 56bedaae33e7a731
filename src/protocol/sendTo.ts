// Copies a stream of bytes into a Writable that the caller owns and keeps open.
import type { Writable } from "node:stream";

/**
 * Writes every chunk of `source` to `out`, waiting for `drain` whenever `out` asks, and resolves
 * once the last write has completed. It never ends `out`. An error or close of `out` rejects,
 * and leaving the loop early ends the source's iteration (which destroys a stream source).
 */
export async function sendTo(source: AsyncIterable<unknown>, out: Writable): Promise<void> {
  let failure: Error | undefined;
  const onError = (error: Error): void => {
    failure ??= error;
  };
  // A listener for the whole copy: without one, an EPIPE on `out` would crash the process.
  out.on("error", onError);
  try {
    let lastWrite: Promise<void> = Promise.resolve();
    for await (const chunk of source) {
      if (failure !== undefined) throw failure;
      if (out.destroyed || out.writableEnded) throw new Error("the output closed early");
      lastWrite = new Promise<void>((resolve, reject) => {
        out.write(chunk, (error) => {
          if (error) reject(error);
          else resolve();
        });
      });
      // Observed below; until then a failed write must not count as unhandled.
      lastWrite.catch(() => undefined);
      if (out.writableNeedDrain) await drain(out);
    }
    // Writes complete in order, so the last one completing means all have.
    await lastWrite;
    if (failure !== undefined) throw failure;
  } finally {
    out.off("error", onError);
  }
}

function drain(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.destroyed) {
      reject(new Error("the output closed early"));
      return;
    }
    const onDrain = (): void => {
      cleanup();
      resolve();
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error("the output closed early"));
    };
    const cleanup = (): void => {
      out.off("drain", onDrain);
      out.off("error", onError);
      out.off("close", onClose);
    };
    out.on("drain", onDrain);
    out.on("error", onError);
    out.on("close", onClose);
  });
}
