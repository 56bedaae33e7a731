// The host's side of a connection that speaks frames (src/protocol/inside.ts), read as
// FrameConnection reads them. Writes report whether the peer keeps up, so a relay can pause the
// other side (backpressure) rather than buffer a flood.
import {
  FrameConnection,
  frameBytes,
  type FrameHandler,
  type FrameKind,
} from "../../protocol/index.js";

export type { FrameHandler };

export class FrameSocket extends FrameConnection {
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
}
