// Servers and clients on loopback and unix sockets for the egress tests: real sockets, so a
// test sees exactly the bytes a sandboxed client would.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, connect, type NetConnectOpts, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh private directory with a short path (unix socket paths are limited to 107 bytes). */
export async function tempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "warden-egress-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

export function listen(server: Server, where: string | number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    const done = (): void => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    };
    if (typeof where === "string") server.listen(where, done);
    else server.listen(where, "127.0.0.1", done);
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
  });
}

export interface EchoServer {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: () => number;
  close(): Promise<void>;
}

/**
 * Echoes what it receives; when the client ends its side, answers `bye\n` and ends its own, so
 * a test can see that a half-close travelled and that the answer still came back.
 */
export async function startEchoServer(
  where: string | number = 0,
): Promise<EchoServer & { server: Server }> {
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.on("data", (chunk) => socket.write(chunk));
    socket.on("end", () => socket.end("bye\n"));
  });
  const port = await listen(server, where);
  return {
    server,
    port,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await closeServer(server);
    },
  };
}

/** Connects, writes `bytes` (then ends when `end`), and collects everything until the close. */
export function exchange(
  where: NetConnectOpts,
  bytes: string | Buffer,
  options: { end?: boolean; timeoutMs?: number } = {},
): Promise<{ text: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ ...where, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString(), timedOut: true });
    }, options.timeoutMs ?? 5_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => undefined);
    socket.on("end", () => socket.end());
    socket.on("close", () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString(), timedOut: false });
    });
    socket.write(bytes);
    if (options.end === true) socket.end();
  });
}

export interface Tunnel {
  readonly status: number;
  /** The whole response head (and body, for a refusal). */
  readonly head: string;
  readonly socket: Socket;
}

/** Sends CONNECT for `authority` to the proxy at `where` and reads the answer's head. */
export function openTunnel(where: NetConnectOpts, authority: string, extra = ""): Promise<Tunnel> {
  return new Promise((resolve, reject) => {
    const socket = connect({ ...where, allowHalfOpen: true });
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.off("data", onData);
      socket.pause();
      const head = buffered.toString("latin1", 0, end + 4);
      const rest = buffered.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve({ status: Number(head.split(" ")[1]), head: head + rest.toString(), socket });
    };
    socket.on("data", onData);
    socket.once("error", reject);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n${extra}`);
  });
}

/** Reads from a socket until `text` has arrived, or fails after a timeout. */
export function readUntil(socket: Socket, text: string, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => {
      socket.off("data", onData);
      reject(new Error(`did not read ${JSON.stringify(text)}; got ${JSON.stringify(seen)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        socket.off("data", onData);
        socket.pause();
        resolve(seen);
      }
    };
    socket.on("data", onData);
    socket.resume();
  });
}

/**
 * Resolves with whether the peer closed the connection within the time: an end from the peer
 * counts (this side then ends too, as a client that is done would), and so does a reset.
 */
export function closedWithin(socket: Socket, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    if (socket.destroyed || socket.readableEnded) {
      resolve(true);
      return;
    }
    socket.on("error", () => undefined);
    socket.once("end", () => socket.end());
    const timer = setTimeout(() => {
      resolve(false);
    }, timeoutMs);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.resume();
  });
}
