// The host's end of inside.sock: the connections the runner keeps open so that the host can hand
// it sessions. Each must say hello first, within a bound; then it waits, idle, saying nothing (a
// frame from an idle connection ends it). At most INSIDE_LIMITS.sessions + 1 connections at once:
// the sessions and one spare.
import type { Server, Socket } from "node:net";
import {
  FRAME,
  FROM_GUEST_KINDS,
  INSIDE_LIMITS,
  INSIDE_VERSION,
  parseFrameJson,
} from "../../protocol/index.js";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { memo } from "../../lang/index.js";
import { FrameSocket } from "./frameSocket.js";
import { closeUnix, listenUnix } from "./unixListener.js";

/** How often a session waiting for an idle connection looks again. */
const TAKE_POLL_MS = 50;

const helloSchema = memo(() => z.object({ v: z.literal(INSIDE_VERSION) }).strict());

export class GuestLinks {
  readonly #sockets = new Set<Socket>();
  readonly #idle: FrameSocket[] = [];
  #released = false;
  #closed = false;
  #server: Server | undefined;

  private constructor(readonly path: string) {}

  static async listen(path: string): Promise<GuestLinks> {
    const links = new GuestLinks(path);
    links.#server = await listenUnix(path, (socket) => {
      links.#accept(socket);
    });
    return links;
  }

  /** Whether `warden stop` has ended the debug hold. */
  get released(): boolean {
    return this.#released;
  }

  /**
   * An idle connection for a session, waiting up to INSIDE_LIMITS.helloMs for one (the runner
   * opens the next as a session begins); undefined when none comes.
   */
  async takeSoon(): Promise<FrameSocket | undefined> {
    const giveUpAt = Date.now() + INSIDE_LIMITS.helloMs;
    for (;;) {
      const link = this.take();
      if (link !== undefined || Date.now() >= giveUpAt || this.#closed) return link;
      await sleep(TAKE_POLL_MS);
    }
  }

  /** An idle connection for a session, taken out of the pool; undefined when none waits. */
  take(): FrameSocket | undefined {
    for (;;) {
      const link = this.#idle.shift();
      if (link === undefined) return undefined;
      if (!link.socket.destroyed) return link;
    }
  }

  /** Ends the debug hold: every idle connection is told now, and any that says hello later. */
  release(): void {
    this.#released = true;
    for (const link of this.#idle) link.write(FRAME.release);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#server !== undefined) await closeUnix(this.#server, this.#sockets, this.path);
  }

  #accept(socket: Socket): void {
    if (this.#sockets.size >= INSIDE_LIMITS.sessions + 1) {
      socket.on("error", () => undefined);
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
    const link = new FrameSocket(socket, FROM_GUEST_KINDS);
    const timer = setTimeout(() => {
      link.destroy();
    }, INSIDE_LIMITS.helloMs);
    timer.unref();
    link.onFrame((kind, payload) => {
      clearTimeout(timer);
      if (kind !== FRAME.hello || parseFrameJson(helloSchema(), payload) === undefined) {
        link.destroy();
        return;
      }
      // Idle from now on: anything it says before it is handed a session ends it.
      link.onFrame(() => {
        link.destroy();
      });
      this.#idle.push(link);
      if (this.#released) link.write(FRAME.release);
    });
    void link.closed.then(() => {
      clearTimeout(timer);
      const at = this.#idle.indexOf(link);
      if (at !== -1) this.#idle.splice(at, 1);
    });
  }
}
