// The runner's side of stepping inside (src/protocol/inside.ts): it keeps one idle connection
// open to the host's inside.sock, on which the host hands it a session (`open`) or the end of a
// debug hold (`release`). A connection that gets a session runs it and the runner opens the next
// idle one, up to INSIDE_LIMITS.sessions at once. Only a task whose settings allow it starts this
// service, and the host serves the socket only for such a task.
import { createConnection } from "node:net";
import {
  FRAME,
  INSIDE_LIMITS,
  INSIDE_VERSION,
  insideOpenSchema,
  parseFrameJson,
} from "../protocol/index.js";
import { FrameLink } from "./frameLink.js";
import { runSession, type SessionContext } from "./insideSession.js";
import { GUEST_INSIDE_LIMITS } from "./limits.js";

export interface InsideServiceOptions extends SessionContext {
  /** The host's inside.sock in the sockets directory. */
  readonly socketPath: string;
  readonly progress: (line: string) => void;
}

export interface InsideService {
  /** Settles once the host has ended the debug hold (`warden stop`). */
  readonly released: Promise<void>;
  /** Stops taking sessions and ends those that run (their process groups with them). */
  close(): void;
}

export function startInsideService(options: InsideServiceOptions): InsideService {
  const links = new Set<FrameLink>();
  let idle: FrameLink | undefined;
  let sessions = 0;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });

  const openIdle = (): void => {
    if (closed || idle !== undefined || sessions >= INSIDE_LIMITS.sessions) return;
    const socket = createConnection({ path: options.socketPath });
    const link = new FrameLink(socket);
    idle = link;
    links.add(link);
    socket.once("connect", () => {
      void link.send(FRAME.hello, Buffer.from(JSON.stringify({ v: INSIDE_VERSION })));
    });
    link.onFrame((kind, payload) => {
      if (kind === FRAME.release) {
        release();
        return;
      }
      if (kind !== FRAME.open || idle !== link) {
        socket.destroy();
        return;
      }
      const open = parseFrameJson(insideOpenSchema(), payload);
      if (open === undefined) {
        socket.destroy();
        return;
      }
      link.hold();
      idle = undefined;
      sessions++;
      openIdle();
      void runSession(link, open, options).finally(() => {
        sessions--;
        // end() lets the last frame reach the host; a host that never closes is cut off.
        link.socket.end();
        setTimeout(() => {
          link.socket.destroy();
        }, GUEST_INSIDE_LIMITS.killGraceMs).unref();
        openIdle();
      });
    });
    void link.closed.then(() => {
      links.delete(link);
      if (idle !== link) return;
      idle = undefined;
      // A host that is not serving yet, or dropped the connection: try again a little later.
      if (!closed) retry = setTimeout(openIdle, GUEST_INSIDE_LIMITS.reconnectMs);
    });
  };

  openIdle();
  options.progress("stepping inside is allowed: serving exec, shell and cp");
  return {
    released,
    close() {
      closed = true;
      clearTimeout(retry);
      for (const link of links) link.socket.destroy();
    },
  };
}
