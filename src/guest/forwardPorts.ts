// The sandbox's side of the network gate. The sandbox has no network device, only loopback, so
// the runner listens on loopback ports and carries each TCP connection over a unix socket that
// the host bound into the sandbox, where the host's proxy or relay answers it.
import {
  createConnection,
  createServer,
  type IpcNetConnectOpts,
  type Server,
  type Socket,
} from "node:net";
import { joinSockets, LIMITS, tunnelReads } from "../protocol/index.js";

/**
 * Connections one forwarded port carries at once. The agent's tools open a handful each; past
 * this a new connection is closed at once rather than holding the host's sockets too.
 */
export const MAX_FORWARDED_CONNECTIONS = 256;

export interface ForwardRule {
  /** Only loopback: the sandbox has no other interface, and nothing else should listen. */
  readonly host: "127.0.0.1";
  /** The port to listen on; 0 takes any free port (tests), reported in `ports`. */
  readonly port: number;
  /** The unix socket each connection is carried to. */
  readonly socketPath: string;
}

export interface ForwardedPorts {
  /** The ports listened on, in the order of the rules. */
  readonly ports: readonly number[];
  /** Stops listening and cuts every connection. */
  close(): Promise<void>;
}

/** One listener and the connections it carries. */
class Forwarder {
  readonly #sockets = new Set<Socket>();
  readonly server: Server;

  constructor(readonly rule: ForwardRule) {
    const options = {
      allowHalfOpen: true,
      pauseOnConnect: true,
      highWaterMark: LIMITS.tunnelBufferBytes,
    };
    this.server = createServer(options, (client) => {
      this.#carry(client);
    });
    this.server.maxConnections = MAX_FORWARDED_CONNECTIONS;
    // An accept that fails (too many open files) is the one connection's problem: the
    // listener stays up.
    this.server.on("error", () => undefined);
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
  }

  #carry(client: Socket): void {
    this.#track(client);
    client.setNoDelay(true);
    const reads = tunnelReads();
    // Node takes a socket's stream options here too, though its types leave them out.
    const options: IpcNetConnectOpts & { highWaterMark: number } = {
      path: this.rule.socketPath,
      allowHalfOpen: true,
      highWaterMark: LIMITS.tunnelBufferBytes,
      onread: reads.onread,
    };
    const host = createConnection(options);
    // Paused until it is joined to the client, as tunnelReads requires.
    host.pause();
    this.#track(host);
    const refuse = (): void => {
      client.destroy();
      host.destroy();
    };
    host.once("error", refuse);
    client.once("error", refuse);
    client.once("close", refuse);
    host.once("connect", () => {
      host.off("error", refuse);
      client.off("error", refuse);
      client.off("close", refuse);
      if (client.destroyed) host.destroy();
      else joinSockets(client, host, reads);
    });
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen({ host: this.rule.host, port: this.rule.port }, () => {
        this.server.off("error", reject);
        const address = this.server.address();
        resolve(typeof address === "object" && address !== null ? address.port : this.rule.port);
      });
    });
  }

  close(): Promise<void> {
    const closed = new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
    for (const socket of this.#sockets) socket.destroy();
    return closed;
  }
}

/**
 * Listens on each rule's loopback port and carries every connection to the rule's unix socket.
 * When one port cannot be listened on, the ones already started are closed and it throws.
 */
export async function forwardPorts(rules: readonly ForwardRule[]): Promise<ForwardedPorts> {
  const started: Forwarder[] = [];
  const ports: number[] = [];
  try {
    for (const rule of rules) {
      const forwarder = new Forwarder(rule);
      ports.push(await forwarder.listen());
      started.push(forwarder);
    }
  } catch (error) {
    await Promise.all(started.map((f) => f.close()));
    throw error;
  }
  return {
    ports,
    close: async () => {
      await Promise.all(started.map((f) => f.close()));
    },
  };
}
