// The host side of the sandbox's API base URL (ANTHROPIC_BASE_URL, OPENAI_BASE_URL or
// GOOGLE_GEMINI_BASE_URL): an HTTP server on a unix socket that forwards each request to the
// configured upstream with the real credential in place of whatever the sandbox sent, and
// streams the answer back as it comes. Only the API's own paths are forwarded (relayTarget),
// and the key never comes back in an answer (keyScrubber).
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { Socket } from "node:net";
import { pipeline } from "node:stream/promises";
import { RelayMethodNotAllowedError, type RelayRefusal, type UpstreamFailure } from "./errors.js";
import { KeyScrubber } from "./keyScrubber.js";
import { EGRESS_LIMITS } from "./limits.js";
import { RELAY_APIS, relayErrorBody, type ApiKind } from "./relayApis.js";
import {
  authSecret,
  downstreamHeaders,
  relayAuth,
  upstreamHeaders,
  type RelayAuth,
} from "./relayHeaders.js";
import { checkPlaceholder, parseUpstream, type Upstream } from "./relaySettings.js";
import { checkRelayTarget, upstreamPath } from "./relayTarget.js";
import { closeServer, listenOn } from "./socketServer.js";
import type { SpendGate, SpendRefusal } from "./spendGate.js";
import { rejectedBy, unreachableBy } from "./upstreamFailure.js";
import { priceFinder, UsageMeter, type MeterContext } from "./usageMeter.js";
import { watchLimit } from "./limitWatch.js";
import type { UsageLimit } from "./usageLimit.js";

export interface RelayOptions {
  /** Where to listen; the directory should be private to the task (see startEgress). */
  readonly socketPath: string;
  /**
   * Which API the relay stands in front of: it sets the defaults of `upstream` and `auth`, the
   * shape of the relay's own error answers and the variables its hints name. Default anthropic.
   */
  readonly api?: ApiKind;
  /** The API's base URL; a path in it is kept as a prefix. Default: the API's public one. */
  readonly upstream?: string;
  /** The real credential. It is sent upstream and nowhere else, and never logged. */
  readonly apiKey: string;
  /**
   * How the credential is sent: `x-api-key`, `bearer` or `x-goog-api-key`. Default: the way
   * the API's first key variable is sent (x-api-key, bearer, x-goog-api-key).
   */
  readonly auth?: RelayAuth["kind"];
  /** What the sandbox holds instead of the key; checked to differ from it. */
  readonly placeholderKey: string;
  /**
   * Told of each answer or connection error of the upstream that no retry can mend (a refused
   * key, nothing listening): the agent is still answered as usual, and the caller decides
   * whether the task goes on. Called once per such request.
   */
  readonly onUpstreamFailure?: (failure: UpstreamFailure) => void;
  /**
   * The task's spending gate. With it, the relay asks `check()` before each request that costs
   * money (RelayRoute.metered), answers a refusal itself in the API's error shape, and meters
   * the usage of every answer to such a request into `record()`. Without it nothing is metered.
   */
  readonly spend?: SpendGate;
  /**
   * Told, once per model name (at most EGRESS_LIMITS.meterUnpricedWarnings names), that an
   * answer named a model the price table does not have: its tokens are then priced at the
   * API's highest prices. Only called when `spend` is given.
   */
  readonly onUnpricedModel?: (model: string) => void;
  /**
   * Told of each 429 answer that names when its limit resets (limitWatch.ts): the agent still
   * gets the answer as it came, and the caller decides whether the task waits for the reset.
   */
  readonly onUsageLimit?: (limit: UsageLimit) => void;
}

export interface RunningRelay {
  /** Stops listening and cuts every request in flight. */
  close(): Promise<void>;
}

/**
 * An answer of the relay's own, in the API's error shape so the agent shows it plainly. The
 * connection closes after it, unless `keepOpen` (the caller drains the request's body and cuts
 * the connection itself past a bound).
 */
function reply(
  res: ServerResponse,
  api: ApiKind,
  status: number,
  type: string,
  message: string,
  extra: Readonly<Record<string, string>> = {},
  googleStatus?: string,
  keepOpen = false,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(relayErrorBody(api, status, type, message, googleStatus));
  res.writeHead(status, {
    ...extra,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...(keepOpen ? {} : { connection: "close" }),
  });
  res.end(body);
}

/** The answer to a request the relay refuses before anything goes upstream. */
function refuse(req: IncomingMessage, res: ServerResponse, api: ApiKind, refusal: RelayRefusal) {
  // The body is not read: the connection closes after the answer.
  req.resume();
  const hint = refusal.hint === undefined ? "" : ` (${refusal.hint})`;
  const allow: Record<string, string> =
    refusal instanceof RelayMethodNotAllowedError ? { allow: refusal.allow.join(", ") } : {};
  reply(res, api, refusal.status, refusal.type, `${refusal.message}${hint}`, allow);
}

/** The gate's verdict; a gate that throws refuses, so a broken gate cannot lift a cap. */
function askGate(gate: SpendGate): SpendRefusal | undefined {
  try {
    return gate.check();
  } catch {
    return { message: "the spending gate failed, so no request that costs money is sent" };
  }
}

/** The model a Gemini path names (`…/models/{model}:method`), which Google bills. */
function pathModel(api: ApiKind, path: string): string | undefined {
  if (api !== "gemini") return undefined;
  return path.split("/").at(-1)?.split(":")[0];
}

/**
 * Whether an answer's body is sent as it is. A compressed body could carry the key in a form
 * the relay cannot see, so only an answer without a content coding is passed on.
 */
function isPlainBody(encoding: string | undefined): boolean {
  return encoding === undefined || encoding.trim() === "" || encoding.trim() === "identity";
}

class Relay {
  readonly #api: ApiKind;
  readonly #upstream: Upstream;
  readonly #auth: RelayAuth;
  readonly #scrubber: KeyScrubber;
  readonly #agent: HttpAgent;
  readonly #sockets = new Set<Socket>();
  readonly #onFailure: (failure: UpstreamFailure) => void;
  readonly #spend: SpendGate | undefined;
  readonly #price: MeterContext["price"];
  readonly #onLimit: ((limit: UsageLimit) => void) | undefined;
  readonly server: Server;

  constructor(
    api: ApiKind,
    upstream: Upstream,
    auth: RelayAuth,
    onFailure: (failure: UpstreamFailure) => void,
    spend: Pick<RelayOptions, "spend" | "onUnpricedModel" | "onUsageLimit">,
  ) {
    this.#onLimit = spend.onUsageLimit;
    this.#api = api;
    this.#upstream = upstream;
    this.#auth = auth;
    this.#onFailure = onFailure;
    this.#spend = spend.spend;
    const warned = new Set<string>();
    const warn = spend.onUnpricedModel ?? (() => undefined);
    this.#price = priceFinder(api, (model) => {
      if (warned.has(model) || warned.size >= EGRESS_LIMITS.meterUnpricedWarnings) return;
      warned.add(model);
      try {
        warn(model);
      } catch {
        // A listener's trouble never reaches the request.
      }
    });
    this.#scrubber = new KeyScrubber(authSecret(auth));
    this.#agent =
      upstream.protocol === "https:"
        ? new HttpsAgent({ keepAlive: true })
        : new HttpAgent({ keepAlive: true });
    this.server = createServer(
      {
        maxHeaderSize: EGRESS_LIMITS.relayHeaderBytes,
        headersTimeout: EGRESS_LIMITS.relayHeadersTimeoutMs,
        requestTimeout: EGRESS_LIMITS.relayRequestTimeoutMs,
        connectionsCheckingInterval: EGRESS_LIMITS.timeoutCheckIntervalMs,
      },
      (req, res) => {
        this.#forward(req, res);
      },
    );
    this.server.maxConnections = EGRESS_LIMITS.relayConnections;
    this.server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once("close", () => this.#sockets.delete(socket));
    });
  }

  #forward(req: IncomingMessage, res: ServerResponse): void {
    const checked = checkRelayTarget(this.#api, req.method ?? "", req.url ?? "");
    if (checked.kind === "refuse") {
      refuse(req, res, this.#api, checked.refusal);
      return;
    }
    const gate = checked.metered ? this.#spend : undefined;
    const refusal = gate === undefined ? undefined : askGate(gate);
    if (refusal !== undefined) {
      // Nothing goes upstream; the body is not read and the connection closes after the answer.
      req.resume();
      const { status, type, googleStatus } = RELAY_APIS[this.#api].spendRefusal;
      reply(res, this.#api, status, type, refusal.message, {}, googleStatus);
      return;
    }
    const path = upstreamPath(this.#upstream.prefix, checked.target);
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > EGRESS_LIMITS.relayBodyBytes) {
      reply(
        res,
        this.#api,
        413,
        "request_too_large",
        `the request body is over ${EGRESS_LIMITS.relayBodyBytes} bytes`,
      );
      return;
    }
    const send = this.#upstream.protocol === "https:" ? httpsRequest : httpRequest;
    const upstream = send({
      protocol: this.#upstream.protocol,
      hostname: this.#upstream.hostname,
      port: this.#upstream.port,
      method: req.method,
      path,
      headers: upstreamHeaders(req.headers, this.#auth, this.#upstream.host),
      agent: this.#agent,
      timeout: EGRESS_LIMITS.relayUpstreamIdleMs,
    });
    // Once the relay has answered or given up, the rest of the exchange is dropped quietly.
    let done = false;
    const fail = (status: number, type: string, message: string, keepOpen = false): void => {
      if (done) return;
      done = true;
      upstream.destroy();
      req.resume();
      reply(res, this.#api, status, type, message, {}, undefined, keepOpen);
    };
    upstream.on("timeout", () => {
      fail(
        504,
        "api_error",
        `the API upstream was silent for ${EGRESS_LIMITS.relayUpstreamIdleMs} ms`,
      );
    });
    upstream.on("error", (error: NodeJS.ErrnoException) => {
      const failure = done ? undefined : unreachableBy(this.#api, this.#upstream, error.code);
      if (failure !== undefined) this.#report(failure);
      // Only the code: a message could quote the upstream's configuration.
      fail(502, "api_error", `the API upstream could not be reached (${error.code ?? "error"})`);
    });
    upstream.on("response", (answer) => {
      if (done) {
        answer.destroy();
        return;
      }
      const failure = rejectedBy(this.#api, this.#upstream, answer.statusCode ?? 0);
      if (failure !== undefined) this.#report(failure);
      if (this.#onLimit !== undefined) watchLimit(this.#api, answer, Date.now, this.#onLimit);
      if (!isPlainBody(answer.headers["content-encoding"])) {
        answer.destroy();
        fail(
          502,
          "api_error",
          "the API upstream sent a compressed answer, which the relay does not pass on",
        );
        return;
      }
      const scrub = this.#scrubber;
      try {
        res.writeHead(
          answer.statusCode ?? 502,
          answer.statusMessage === undefined ? undefined : scrub.text(answer.statusMessage),
          scrub.headers(downstreamHeaders(answer.headers)),
        );
      } catch {
        // Node refuses to send a status line or header it deems invalid; the upstream's
        // answer is then passed on as a failure rather than crashing the host.
        answer.destroy();
        fail(502, "api_error", "the API upstream sent an answer the relay cannot pass on");
        return;
      }
      // The status and headers go out at once; each body chunk then goes out as it arrives,
      // which is what keeps a server-sent event stream live. The scrubber holds back only bytes
      // that may be the start of the key, never an event's closing blank line.
      res.flushHeaders();
      pipeline(answer, scrub.body(), res).catch(() => {
        done = true;
        upstream.destroy();
        res.destroy();
      });
      // After the pipeline, so that each chunk is on its way to the agent before it is read.
      if (gate !== undefined) this.#meter(answer, gate, checked.target.path);
    });
    res.on("close", () => {
      if (!res.writableFinished) {
        done = true;
        upstream.destroy();
      }
    });
    this.#sendBody(req, upstream, fail);
  }

  /**
   * Reads the usage of a successful answer as its chunks pass, beside the pipeline that
   * forwards them: the meter sees the upstream's bytes and neither holds nor changes them.
   */
  #meter(answer: IncomingMessage, gate: SpendGate, path: string): void {
    const status = answer.statusCode ?? 0;
    if (status < 200 || status > 299) return;
    const meter = new UsageMeter(
      { api: this.#api, pathModel: pathModel(this.#api, path), gate, price: this.#price },
      answer.headers["content-type"],
    );
    if (!meter.reads) return;
    answer.on("data", (chunk: Buffer) => {
      meter.write(chunk);
    });
    answer.once("end", () => {
      meter.end();
    });
  }

  /** Tells the listener of a failure; the listener's own trouble never reaches the request. */
  #report(failure: UpstreamFailure): void {
    try {
      this.#onFailure(failure);
    } catch {
      // The agent's answer goes on as it would without a listener.
    }
  }

  /** Copies the request body upstream with backpressure, refusing it past the size limit. */
  #sendBody(
    req: IncomingMessage,
    upstream: ReturnType<typeof httpRequest>,
    fail: (status: number, type: string, message: string, keepOpen?: boolean) => void,
  ): void {
    let seen = 0;
    req.on("data", (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > EGRESS_LIMITS.relayBodyBytes + EGRESS_LIMITS.relayDrainBytes) {
        req.socket.destroy();
        return;
      }
      if (seen > EGRESS_LIMITS.relayBodyBytes) {
        // The rest of the body is read and dropped (fail resumes the request), so the 413 is
        // not lost to a reset while the client still sends.
        fail(
          413,
          "request_too_large",
          `the request body is over ${EGRESS_LIMITS.relayBodyBytes} bytes`,
          true,
        );
        return;
      }
      if (upstream.destroyed) return;
      if (!upstream.write(chunk)) {
        req.pause();
        upstream.once("drain", () => req.resume());
      }
    });
    req.on("end", () => {
      if (!upstream.destroyed) upstream.end();
    });
    req.on("error", () => upstream.destroy());
  }

  listen(socketPath: string): Promise<void> {
    return listenOn(this.server, socketPath);
  }

  async close(): Promise<void> {
    const closed = closeServer(this.server, this.#sockets);
    this.#agent.destroy();
    await closed;
  }
}

/** Starts the relay; throws BadRelaySettingError before listening when a setting is wrong. */
export async function startRelay(options: RelayOptions): Promise<RunningRelay> {
  const api = options.api ?? "anthropic";
  const settings = RELAY_APIS[api];
  const upstream = parseUpstream(options.upstream ?? settings.defaultUpstream, api);
  const auth = relayAuth(options.auth ?? settings.keys[0].auth, options.apiKey);
  checkPlaceholder(options.placeholderKey, auth, api);
  // The relay builds its key scrubber here, before listening: a key it cannot mark is refused
  // up front.
  const relay = new Relay(api, upstream, auth, options.onUpstreamFailure ?? (() => undefined), {
    spend: options.spend,
    onUnpricedModel: options.onUnpricedModel,
    onUsageLimit: options.onUsageLimit,
  });
  await relay.listen(options.socketPath);
  return { close: () => relay.close() };
}
