// A socket that speaks frames (src/protocol/inside.ts): frames of the kinds this side takes are
// read in bounded memory and handed on one by one; a frame of another kind or over the limit
// ends the connection. Writes report whether the peer keeps up, so a relay can pause the other
// side (backpressure) rather than buffer a flood.
import type { Socket } from "node:net";
import { FrameReader, frameBytes, type FrameKind } from "../../protocol/index.js";

export type FrameHandler = (kind: FrameKind, payload: Buffer) => void;

export class FrameSocket {
  private readonly reader: FrameReader;
  private handler: FrameHandler = () => undefined;
  /** Why the connection was ended for what it sent, once it was. */
  badBy: string | undefined;
  /** Settles when the socket has closed. */
  readonly closed: Promise<void>;

  constructor(
    readonly socket: Socket,
    kinds: ReadonlySet<number>,
  ) {
    this.reader = new FrameReader(
      kinds,
      (kind, payload) => {
        this.handler(kind, payload);
      },
      (why) => {
        this.badBy = why;
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

  onFrame(handler: FrameHandler): void {
    this.handler = handler;
  }

  /** Writes one frame; false when the peer has not read what was written before. */
  write(kind: FrameKind, payload?: Uint8Array): boolean {
    if (this.socket.destroyed) return false;
    return this.socket.write(frameBytes(kind, payload));
  }

  writeJson(kind: FrameKind, value: unknown): boolean {
    return this.write(kind, Buffer.from(JSON.stringify(value)));
  }

  /** Writes a last frame of JSON and ends the connection. */
  finish(kind: FrameKind, value: unknown): void {
    if (this.socket.destroyed) return;
    this.socket.end(frameBytes(kind, Buffer.from(JSON.stringify(value))));
    setTimeout(() => this.socket.destroy(), 1000).unref();
  }

  destroy(): void {
    this.socket.destroy();
  }
}
