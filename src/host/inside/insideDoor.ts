// The door of stepping inside: a unix socket in the task's egress directory (0700, the user's
// alone) that `warden exec`, `shell`, `cp` and `stop` connect to. The executor that runs the task
// serves it, so it is the one process that may record the task's events: each session is
// recorded when it opens and when it ends. A session is relayed frame by frame between the
// user's connection and an idle connection of the runner's (guestLinks.ts); what comes from the
// sandbox is checked on the way: only the kinds a session may send, JSON reports parsed against
// their schemas, output counted against its bound, and the peer that does not keep up pauses the
// other side instead of being buffered for.
import type { Server, Socket } from "node:net";
import {
  FRAME,
  INSIDE_LIMITS,
  TO_GUEST_KINDS,
  cleanLine,
  insideErrorSchema,
  insideExitSchema,
  insideOpenSchema,
  parseFrameJson,
  type FrameKind,
  type InsideOpen,
} from "../../protocol/index.js";
import { FrameSocket } from "./frameSocket.js";
import type { GuestLinks } from "./guestLinks.js";
import { closeUnix, listenUnix } from "./unixListener.js";
import { INSIDE_EVENTS, openedEvent } from "./insideEvents.js";

/** The door's name in the task's egress directory. */
export const DOOR_SOCKET = "door.sock";

/** Connections to the door at once: the sessions and a few that are refused or stopping. */
const DOOR_CONNECTIONS = 2 * INSIDE_LIMITS.sessions;

export interface InsideDoorOptions {
  readonly path: string;
  readonly guest: GuestLinks;
  /** Records a task event (the executor's attachment). */
  readonly record: (type: string, data: Record<string, unknown>) => void;
  /** Whether the task was created with --debug: `stop` means something only then. */
  readonly debug: boolean;
}

export class InsideDoor {
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;

  private constructor(private readonly options: InsideDoorOptions) {}

  static async listen(options: InsideDoorOptions): Promise<InsideDoor> {
    const door = new InsideDoor(options);
    door.#server = await listenUnix(options.path, (socket) => {
      door.#accept(socket);
    });
    return door;
  }

  async close(): Promise<void> {
    if (this.#server !== undefined) {
      await closeUnix(this.#server, this.#sockets, this.options.path);
    }
  }

  #accept(socket: Socket): void {
    if (this.#sockets.size >= DOOR_CONNECTIONS) {
      socket.on("error", () => undefined);
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
    const user = new FrameSocket(socket, TO_GUEST_KINDS);
    const timer = setTimeout(() => {
      user.destroy();
    }, INSIDE_LIMITS.helloMs);
    timer.unref();
    user.onFrame((kind, payload) => {
      clearTimeout(timer);
      if (kind === FRAME.release) {
        this.#stop(user);
        return;
      }
      const open = kind === FRAME.open ? parseFrameJson(insideOpenSchema(), payload) : undefined;
      if (open === undefined) {
        user.finish(FRAME.error, { message: "the first frame was not a session warden takes" });
        return;
      }
      void this.#session(user, open, payload);
    });
  }

  #stop(user: FrameSocket): void {
    if (!this.options.debug) {
      user.finish(FRAME.error, {
        message: "this task was not created with --debug: there is no hold to end",
      });
      return;
    }
    this.options.record(INSIDE_EVENTS.opened, { kind: "stop" });
    this.options.guest.release();
    user.finish(FRAME.exit, { code: 0 });
  }

  async #session(user: FrameSocket, open: InsideOpen, openPayload: Buffer): Promise<void> {
    // The user's frames that come while a connection is found wait for it.
    const early: [FrameKind, Buffer][] = [];
    user.onFrame((kind, payload) => early.push([kind, payload]));
    const guest = await this.options.guest.takeSoon();
    if (guest === undefined) {
      user.finish(FRAME.error, {
        message: `the sandbox is not taking sessions now: its workspace is not ready yet, it has ended, or ${INSIDE_LIMITS.sessions} sessions are open`,
      });
      return;
    }
    const opened = openedEvent(open);
    this.options.record(INSIDE_EVENTS.opened, opened);
    const bound = open.kind === "get" ? INSIDE_LIMITS.copyBytes : INSIDE_LIMITS.sessionOutputBytes;
    let output = 0;
    let ended = false;
    const end = (data: Record<string, unknown>): void => {
      if (ended) return;
      ended = true;
      this.options.record(INSIDE_EVENTS.ended, { kind: opened.kind, bytes: output, ...data });
    };
    const refuse = (why: string): void => {
      end({ error: why });
      user.finish(FRAME.error, { message: why });
      guest.destroy();
    };
    relayPaced(user, guest);
    relayPaced(guest, user);
    user.onFrame((kind, payload) => {
      if (kind === FRAME.open || kind === FRAME.release) {
        user.destroy();
        return;
      }
      guest.write(kind, payload);
    });
    guest.write(FRAME.open, openPayload);
    for (const [kind, payload] of early.splice(0)) guest.write(kind, payload);
    guest.onFrame((kind, payload) => {
      switch (kind) {
        case FRAME.stdout:
        case FRAME.stderr:
          output += payload.byteLength;
          if (output > bound) {
            refuse(`the sandbox sent more than the ${bound} bytes a session may`);
            return;
          }
          user.write(kind, payload);
          return;
        case FRAME.exit: {
          const exit = parseFrameJson(insideExitSchema(), payload);
          if (exit === undefined) {
            refuse("the sandbox sent an exit report warden does not take");
            return;
          }
          if (open.kind === "get" && exit.bytes !== output) {
            refuse(`the sandbox said it sent ${exit.bytes ?? "no"} bytes where ${output} came`);
            return;
          }
          end({
            exitCode: exit.code,
            ...(exit.signal === undefined ? {} : { signal: exit.signal }),
            // A copy in says how many bytes it put; nothing came out of it.
            ...(exit.bytes === undefined ? {} : { bytes: exit.bytes }),
          });
          user.finish(FRAME.exit, exit);
          guest.destroy();
          return;
        }
        case FRAME.error: {
          const error = parseFrameJson(insideErrorSchema(), payload);
          refuse(
            error === undefined
              ? "the sandbox refused the session with a report warden does not take"
              : cleanLine(error.message),
          );
          return;
        }
        case FRAME.hello:
        case FRAME.open:
        case FRAME.stdin:
        case FRAME.stdinEnd:
        case FRAME.resize:
        case FRAME.release:
          // The reader takes none of the kinds that go to the guest; a hello is the idle
          // connection's first word, never a session's.
          refuse("the sandbox sent a frame a session does not take");
      }
    });
    void guest.closed.then(() => {
      if (!ended) {
        refuse(
          guest.badBy === undefined
            ? "the sandbox ended the session without a word (its runner stopped?)"
            : `the sandbox sent ${guest.badBy}`,
        );
      }
    });
    void user.closed.then(() => {
      if (!ended) end({ error: "the user's side closed" });
      guest.destroy();
    });
  }
}

/** While `to` has not read what was written to it, `from` is not read either. */
function relayPaced(from: FrameSocket, to: FrameSocket): void {
  to.socket.on("drain", () => {
    from.socket.resume();
  });
  from.socket.on("data", () => {
    if (to.socket.writableNeedDrain) from.socket.pause();
  });
}
