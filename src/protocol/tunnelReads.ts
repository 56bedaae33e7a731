// Reads for the download direction of a tunnel: the socket a tunnel end dials reads straight
// into large pooled buffers (node's `onread`), and each read is written on to the other socket
// as it is. A bulk transfer then costs one read and one write per kernel buffer's worth instead
// of per 64 KiB, with no copy and no readable stream in between.
import type { Socket } from "node:net";
import { LIMITS } from "./limits.js";

/** The `onread` option of `net.connect`, as node takes it. */
export interface OnRead {
  readonly buffer: () => Uint8Array;
  readonly callback: (bytes: number, buffer: Uint8Array) => boolean;
}

export interface TunnelReads {
  /** Pass as `onread` to `net.connect`; the socket must then stay paused until `forwardTo`. */
  readonly onread: OnRead;
  /** Writes every read of `source` to `sink` from now on, pausing while `sink` is full. */
  forwardTo(source: Socket, sink: Socket): void;
}

/**
 * Makes the reads for one dialed socket. Each read lands in a fresh part of a pool that is
 * never written twice, so a part handed to `sink.write` stays intact until it is sent; a pool
 * whose free tail is too small for a good read is left to the garbage collector once its parts
 * are sent.
 */
export function tunnelReads(): TunnelReads {
  let pool = Buffer.allocUnsafe(LIMITS.tunnelReadPoolBytes);
  let used = 0;
  let target: { source: Socket; sink: Socket } | undefined;
  /** A read that came before `forwardTo`: kept, and the socket paused, until there is a sink. */
  let held: Uint8Array | undefined;

  const send = (chunk: Uint8Array): boolean => {
    if (target === undefined) {
      held = chunk;
      return false;
    }
    if (target.sink.write(chunk)) return true;
    const { source, sink } = target;
    sink.once("drain", () => source.resume());
    return false;
  };

  return {
    onread: {
      buffer: () => {
        if (pool.length - used < LIMITS.tunnelReadMinBytes) {
          pool = Buffer.allocUnsafe(LIMITS.tunnelReadPoolBytes);
          used = 0;
        }
        return pool.subarray(used);
      },
      // node calls `buffer` for the next read only after this returns, so `used` moves first.
      callback: (bytes, buffer) => {
        used += bytes;
        return send(buffer.subarray(0, bytes));
      },
    },
    forwardTo(source, sink) {
      target = { source, sink };
      const first = held;
      held = undefined;
      if (first === undefined || send(first)) source.resume();
    },
  };
}
