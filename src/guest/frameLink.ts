// One connection of the runner's to inside.sock, as frames (src/protocol/inside.ts): what comes
// from the host is read frame by frame in bounded memory; what goes to it waits for the socket
// to drain once more than a bound is unsent, so a command never outruns a slow host.
import type { Socket } from "node:net";
import { once } from "node:events";
import {
  FrameConnection,
  TO_GUEST_KINDS,
  type FrameHandler,
  frameBytes,
  INSIDE_LIMITS,
  type FrameKind,
} from "../protocol/index.js";
import { GUEST_INSIDE_LIMITS } from "./limits.js";

export class FrameLink extends FrameConnection {
  private readonly held: [FrameKind, Buffer][] = [];

  constructor(socket: Socket) {
    super(socket, TO_GUEST_KINDS);
  }

  /**
   * Holds the frames that come from now on until the next onFrame: a session's stdin may arrive
   * before its command has started.
   */
  hold(): void {
    this.handler = (kind, payload) => {
      this.held.push([kind, payload]);
    };
  }

  /** Where the frames from the host go from now on, those held first. */
  override onFrame(handler: FrameHandler): void {
    this.handler = handler;
    for (const [kind, payload] of this.held.splice(0)) handler(kind, payload);
  }

  get open(): boolean {
    return !this.socket.destroyed && this.socket.writable;
  }

  /** Sends `payload` as frames of `kind`, cut at the frame limit; false once the socket is gone. */
  async send(kind: FrameKind, payload: Uint8Array = new Uint8Array()): Promise<boolean> {
    let offset = 0;
    do {
      if (!this.open) return false;
      const piece = payload.subarray(offset, offset + INSIDE_LIMITS.frameBytes);
      this.socket.write(frameBytes(kind, piece));
      offset += piece.byteLength;
      if (this.socket.writableLength > GUEST_INSIDE_LIMITS.unsentBytes) {
        await Promise.race([once(this.socket, "drain"), this.closed]);
      }
    } while (offset < payload.byteLength);
    return this.open;
  }

  /** Sends a last frame and ends the connection. */
  async finish(kind: FrameKind, value: unknown): Promise<void> {
    await this.send(kind, Buffer.from(JSON.stringify(value)));
    this.socket.end();
  }
}
