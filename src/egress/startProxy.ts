// The host side of the sandbox's HTTPS_PROXY: a CONNECT proxy on a unix socket that opens a
// tunnel only to targets on the allow list, at addresses it resolved and checked itself.
import { lookup } from "node:dns/promises";
import { connect, createServer, type Server, type Socket, type TcpNetConnectOpts } from "node:net";
import {
  cleanLine,
  joinSockets,
  LIMITS,
  tunnelReads,
  type TunnelReads,
} from "../protocol/index.js";
import { parseAllowList, type AllowList } from "./allowList.js";
import {
  formatTarget,
  parseTarget,
  planAddresses,
  planTarget,
  type AddressPlan,
} from "./checkTarget.js";
import { EGRESS_LIMITS } from "./limits.js";
import { ProxyLog } from "./proxyLog.js";
import { readConnectHead } from "./readConnectHead.js";
import { closeServer, listenOn } from "./socketServer.js";

export interface ProxyOptions {
  /** Where to listen; the directory should be private to the task (see startEgress). */
  readonly socketPath: string;
  /** Entries such as `registry.npmjs.org`, `example.com:8443`, `*.example.com`, `10.0.0.5:5432`. */
  readonly allow: readonly string[];
  /** Names from PRESETS. */
  readonly presets?: readonly string[];
  /** proxy.log: appended to, created 0600. */
  readonly log: string;
  /**
   * The wider list that holds while the task's setup runs, beside `allow` and `presets`; none
   * when the task has no setup to run. endSetup() drops it for good.
   */
  readonly setup?: { readonly allow: readonly string[]; readonly presets: readonly string[] };
}

export interface RunningProxy {
  /** Stops listening, cuts every tunnel, and closes proxy.log. */
  close(): Promise<void>;
  /**
   * Drops the setup's list and cuts every tunnel opened while it held: from now on only the
   * agent's list is used. Once called it cannot be undone.
   */
  endSetup(): void;
}

const STATUS_TEXT = {
  400: "Bad Request",
  403: "Forbidden",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
  502: "Bad Gateway",
  504: "Gateway Timeout",
} as const;

type Status = keyof typeof STATUS_TEXT;

/**
 * Answers a request the proxy will not tunnel and ends the connection, dropping what the client
 * still sends until it closes or the linger runs out.
 */
function answer(client: Socket, status: Status, reason: string): void {
  const body = `warden proxy: ${cleanLine(reason)}\n`;
  client.on("data", () => undefined);
  client.resume();
  const linger = setTimeout(() => client.destroy(), EGRESS_LIMITS.proxyLingerMs);
  linger.unref();
  client.once("close", () => {
    clearTimeout(linger);
  });
  client.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n` +
      "Content-Type: text/plain; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      "Connection: close\r\n\r\n" +
      body,
  );
}

type Dialed =
  | { readonly socket: Socket; readonly reads: TunnelReads }
  | { readonly status: Status; readonly reason: string };

/** A decision with what the log and the answer show. */
interface Decision {
  readonly shown: string;
  readonly port: number;
  readonly plan: AddressPlan;
  /** The status of a refusal: 403 for policy, 400 for a bad target, 502 for a failed lookup. */
  readonly status: Status;
}

/** One proxy instance: its allow list, log, and open sockets. */
class Proxy {
  readonly #list: AllowList;
  /** The agent's list and the setup's together, while setup runs; undefined after it. */
  #setupList: AllowList | undefined;
  /** Every socket opened while the setup's list held, cut when it ends. */
  readonly #setupSockets = new Set<Socket>();
  readonly #log: ProxyLog;
  readonly #sockets = new Set<Socket>();
  readonly server: Server;

  constructor(list: AllowList, log: ProxyLog, setupList?: AllowList) {
    this.#list = list;
    this.#setupList = setupList;
    this.#log = log;
    const options = {
      allowHalfOpen: true,
      pauseOnConnect: true,
      highWaterMark: LIMITS.tunnelBufferBytes,
    };
    this.server = createServer(options, (client) => {
      this.#serve(client).catch(() => client.destroy());
    });
    this.server.maxConnections = EGRESS_LIMITS.proxyConnections;
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once("close", () => this.#sockets.delete(socket));
    if (this.#setupList !== undefined) {
      this.#setupSockets.add(socket);
      socket.once("close", () => this.#setupSockets.delete(socket));
    }
  }

  endSetup(): void {
    if (this.#setupList === undefined) return;
    this.#setupList = undefined;
    for (const socket of this.#setupSockets) socket.destroy();
    this.#setupSockets.clear();
  }

  /** The list in force now: the setup's while it runs, else the agent's. */
  get #rules(): AllowList {
    return this.#setupList ?? this.#list;
  }

  async #decide(authority: string): Promise<Decision> {
    const target = parseTarget(authority);
    if (target === undefined) {
      const plan = { kind: "refuse", reason: "not a target of the form host:port" } as const;
      // The text is the client's: it is cut so that junk cannot fill proxy.log.
      return { shown: authority.slice(0, EGRESS_LIMITS.targetBytes), port: 0, plan, status: 400 };
    }
    const shown = formatTarget(target);
    const list = this.#rules;
    const first = planTarget(list, target);
    if (first.kind !== "resolve") return { shown, port: target.port, plan: first, status: 403 };
    let addresses: string[];
    try {
      const found = await lookup(first.name, { all: true, verbatim: true });
      addresses = found.map((entry) => entry.address);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "lookup failed";
      const reason = `the name does not resolve on the host (${code})`;
      return { shown, port: target.port, plan: { kind: "refuse", reason }, status: 502 };
    }
    const plan = planAddresses(list, target, first.rule, addresses);
    return { shown, port: target.port, plan, status: 403 };
  }

  /** Opens a TCP connection to one address, or says why it could not. */
  #dialOne(address: string, port: number, client: Socket): Promise<Dialed> {
    return new Promise((resolve) => {
      const reads = tunnelReads();
      // Node takes a socket's stream options here too, though its types leave them out.
      const options: TcpNetConnectOpts & { highWaterMark: number } = {
        host: address,
        port,
        allowHalfOpen: true,
        noDelay: true,
        highWaterMark: LIMITS.tunnelBufferBytes,
        onread: reads.onread,
      };
      const socket = connect(options);
      // Nothing the target sends may reach the client before the proxy's own answer.
      socket.pause();
      this.#track(socket);
      const giveUp = (status: Status, reason: string): void => {
        cleanup();
        socket.destroy();
        resolve({ status, reason });
      };
      const onTimeout = (): void => {
        giveUp(504, `${address} did not answer in ${EGRESS_LIMITS.proxyDialTimeoutMs} ms`);
      };
      const onError = (error: NodeJS.ErrnoException): void => {
        giveUp(502, `${address} could not be reached (${error.code ?? error.message})`);
      };
      const onGone = (): void => {
        giveUp(502, "the connection closed while dialing");
      };
      const timer = setTimeout(onTimeout, EGRESS_LIMITS.proxyDialTimeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        socket.off("error", onError);
        socket.off("close", onGone);
        client.off("close", onGone);
      };
      socket.on("error", onError);
      socket.on("close", onGone);
      client.on("close", onGone);
      socket.once("connect", () => {
        cleanup();
        resolve({ socket, reads });
      });
    });
  }

  /** Dials the checked addresses in order until one answers; the name is never looked up again. */
  async #dial(addresses: readonly string[], port: number, client: Socket): Promise<Dialed> {
    let last: Dialed = { status: 502, reason: "no address to dial" };
    for (const address of addresses) {
      if (client.destroyed) break;
      last = await this.#dialOne(address, port, client);
      if ("socket" in last) return last;
    }
    return last;
  }

  async #serve(client: Socket): Promise<void> {
    this.#track(client);
    // The tunnel adds handlers of its own; this one keeps a client error from ever being
    // unhandled while the head is read or an answer written.
    client.on("error", () => client.destroy());
    const head = await readConnectHead(client, {
      maxBytes: EGRESS_LIMITS.proxyHeadBytes,
      timeoutMs: EGRESS_LIMITS.proxyHeadTimeoutMs,
    });
    if (head.kind === "gone") {
      client.destroy();
      return;
    }
    if (head.kind === "refuse") {
      this.#log.record("refuse", "(request)", head.reason);
      answer(client, head.status, head.reason);
      return;
    }
    const { shown, port, plan, status } = await this.#decide(head.authority);
    if (plan.kind === "refuse") {
      this.#log.record("refuse", shown, plan.reason);
      answer(client, status, `${shown}: ${plan.reason}`);
      return;
    }
    this.#log.record("allow", shown, `by ${plan.rule.source}`);
    const dialed = await this.#dial(plan.addresses, port, client);
    if (!("socket" in dialed)) {
      if (!client.destroyed) answer(client, dialed.status, `${shown}: ${dialed.reason}`);
      return;
    }
    const upstream = dialed.socket;
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    client.write("HTTP/1.1 200 Connection established\r\n\r\n");
    if (head.rest.length > 0) upstream.write(head.rest);
    joinSockets(client, upstream, dialed.reads);
  }

  listen(socketPath: string): Promise<void> {
    return listenOn(this.server, socketPath);
  }

  async close(): Promise<void> {
    await closeServer(this.server, this.#sockets);
    await this.#log.close();
  }
}

/** Starts the proxy; throws BadAllowEntryError or UnknownPresetError before listening. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const list = parseAllowList(options.allow, options.presets ?? []);
  const setupList =
    options.setup === undefined
      ? undefined
      : parseAllowList(
          [...options.allow, ...options.setup.allow],
          [...(options.presets ?? []), ...options.setup.presets],
        );
  const log = new ProxyLog(options.log, EGRESS_LIMITS.proxyLoggedTargets);
  const proxy = new Proxy(list, log, setupList);
  try {
    await proxy.listen(options.socketPath);
  } catch (error) {
    await log.close();
    throw error;
  }
  return {
    close: () => proxy.close(),
    endSetup: () => {
      proxy.endSetup();
    },
  };
}
