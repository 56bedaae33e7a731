// One connection of the runner's to inside.sock, as frames (src/protocol/inside.ts): what comes
// from the host is read frame by frame in bounded memory; what goes to it waits for the socket
// to drain once more than a bound is unsent, so a command never outruns a slow host.
import type { Socket } from "node:net";
import { once } from "node:events";
import {
  FrameReader,
  TO_GUEST_KINDS,
  frameBytes,
  INSIDE_LIMITS,
  type FrameKind,
} from "../protocol/index.js";
import { GUEST_INSIDE_LIMITS } from "./limits.js";

export class FrameLink {
  private readonly reader: FrameReader;
  private handler: (kind: FrameKind, payload: Buffer) => void = () => undefined;
  private readonly held: [FrameKind, Buffer][] = [];
  /** Settles when the socket has closed, for whatever reason. */
  readonly closed: Promise<void>;

  constructor(readonly socket: Socket) {
    this.reader = new FrameReader(
      TO_GUEST_KINDS,
      (kind, payload) => {
        this.handler(kind, payload);
      },
      () => {
        socket.destroy();
      },
    );
    this.closed = new Promise((resolve) =>
      socket.once("close", () => {
        resolve();
      }),
    );
    socket.on("data", (chunk: Buffer) => {
      this.reader.push(chunk);
    });
    socket.on("error", () => {
      // The close that follows ends whatever used this connection.
    });
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
  onFrame(handler: (kind: FrameKind, payload: Buffer) => void): void {
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
