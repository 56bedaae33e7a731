// Joins two connected sockets into one tunnel: bytes flow both ways, an end (half-close) on one
// side becomes an end on the other, and an error on either destroys both. Both ends of the
// network gate (the runner's forwarders and the host's proxy) carry connections with it.
import type { Socket } from "node:net";
import type { TunnelReads } from "./tunnelReads.js";

/**
 * Both sockets must have been made with `allowHalfOpen: true`, or an end from one side would
 * close the other side's direction before its answer is through. Resumes both. When `b` was
 * dialed with `bReads.onread`, its bytes reach `a` through those reads instead of a pipe.
 */
export function joinSockets(a: Socket, b: Socket, bReads?: TunnelReads): void {
  const fail = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on("error", fail);
  b.on("error", fail);
  a.on("close", (hadError) => {
    if (hadError || !b.writableEnded) b.destroy();
  });
  b.on("close", (hadError) => {
    if (hadError || !a.writableEnded) a.destroy();
  });
  a.pipe(b);
  if (bReads === undefined) {
    b.pipe(a);
    return;
  }
  // As a pipe would: the end of b's bytes ends a's writing side.
  b.once("end", () => a.end());
  bReads.forwardTo(b, a);
}
