// One connection that speaks frames (inside.ts), as both sides read it: frames of the kinds this
// side takes are read in bounded memory and handed on one by one; a frame of another kind or
// over the limit ends the connection, and says why. What each side writes is its own.
import type { Socket } from "node:net";
import { FrameReader, type FrameKind } from "./inside.js";

export type FrameHandler = (kind: FrameKind, payload: Buffer) => void;

export class FrameConnection {
  private readonly reader: FrameReader;
  protected handler: FrameHandler = () => undefined;
  /** Why the connection was ended for what it sent, once it was. */
  badBy: string | undefined;
  /** Settles when the socket has closed, for whatever reason. */
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

  /** Where the frames go from now on. */
  onFrame(handler: FrameHandler): void {
    this.handler = handler;
  }

  destroy(): void {
    this.socket.destroy();
  }
}
