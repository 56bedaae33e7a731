// Listening on and closing the unix sockets the gate serves, the same way for the proxy and the
// relay: a close also cuts every connection still open, so no tunnel outlives its task.
import type { Server, Socket } from "node:net";

/** Resolves once `server` listens on `socketPath`; rejects with the listen error. */
export function listenOn(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Stops accepting, destroys every open connection, and resolves once the server has closed. */
export async function closeServer(server: Server, sockets: Iterable<Socket>): Promise<void> {
  const closed = new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  for (const socket of sockets) socket.destroy();
  await closed;
}
