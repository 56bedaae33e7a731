// A unix socket that only its owner may use, for the sockets of stepping inside: the path is
// checked against sun_path's bound, a stale socket is replaced, and the file is 0600.
import { chmod, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { cleanLine } from "../../protocol/index.js";
import { ChannelPathError } from "../errors.js";

/** The longest path a unix socket may have on Linux (sun_path, its NUL excluded). */
const SOCKET_PATH_BYTES = 107;

export async function listenUnix(path: string, accept: (socket: Socket) => void): Promise<Server> {
  if (Buffer.byteLength(path) > SOCKET_PATH_BYTES) {
    throw new ChannelPathError(`the socket path ${cleanLine(path)} is too long for a unix socket`);
  }
  await rm(path, { force: true });
  const server = createServer({ allowHalfOpen: false }, accept);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  await chmod(path, 0o600);
  return server;
}

/** Closes the server and every socket it accepted, then removes the file. */
export async function closeUnix(
  server: Server,
  sockets: Iterable<Socket>,
  path: string,
): Promise<void> {
  const closed = new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  for (const socket of sockets) socket.destroy();
  await closed;
  await rm(path, { force: true }).catch(() => undefined);
}
