// `warden serve`: an HTTP server for one data directory. It reads and changes tasks through the
// same store operations as the CLI, and pushes changes to the page from the store's own file
// notices. It holds no state of the tasks but a copy of finished ones' summaries (which never
// change), so it can stop and start at any time.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  checkTakesMessages,
  diffTask,
  eventText,
  rerunTask,
  suspendedTask,
  suspendWhenOf,
} from "../host/index.js";
import { WardenError } from "../protocol/index.js";
import {
  APPROVAL_DECISIONS,
  type ApprovalDecision,
  type Tasks,
  type TaskSummary,
} from "../store/index.js";
import { cleanJson } from "./cleanJson.js";
import { EventStream } from "./eventStream.js";
import { WEB_LIMITS } from "./limits.js";
import { ListWatch } from "./listWatch.js";
import { planRequest, TOKEN_COOKIE, type WebRoute } from "./planRequest.js";
import { SECURITY_HEADERS } from "./securityHeaders.js";
import { taskPage, taskRow } from "./taskViews.js";

/** The built page: its HTML, script and style, served as they are. */
export interface PageFiles {
  readonly html: Buffer;
  readonly js: Buffer;
  readonly css: Buffer;
}

export interface WebServerOptions {
  readonly tasks: Tasks;
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  readonly token: string;
  readonly page: PageFiles;
  /**
   * Runs a task in the background (one the page made by a rerun, or a suspended one it resumes),
   * as `warden run --detach` does, and resolves once it has been taken; the server itself never
   * runs a task.
   */
  readonly runInBackground: (id: string) => Promise<void>;
}

export interface RunningWebServer {
  /** The address to open, with the token: print it once. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** The status an error of the store or host is answered with. */
function statusOf(error: WardenError): number {
  if (error.code === "TASK_NOT_FOUND") return 404;
  return error.exitClass === "usage" ? 400 : 409;
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  hint?: string,
) {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, {
    error: cleanJson({ code, message, ...(hint === undefined ? {} : { hint }) }),
  });
}

/** The body of a change, parsed as a JSON object; refused past the size limit. */
async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > WEB_LIMITS.requestBodyBytes)
      throw new BodyError(413, "the request body is too large");
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new BodyError(400, "the request body is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BodyError(400, "the request body is not a JSON object");
  }
  return value as Record<string, unknown>;
}

class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

class WebServer {
  readonly server: Server;
  readonly #options: WebServerOptions;
  readonly #sockets = new Set<Socket>();
  readonly #hosts = new Set<string>();
  #feeds = 0;
  /**
   * Finished tasks' summaries from the last list, by id: they never change, so a refetch reads
   * only the unfinished and new tasks' files. Rebuilt by each list, so removed tasks drop out.
   */
  #finished: ReadonlyMap<string, TaskSummary> = new Map();

  constructor(options: WebServerOptions) {
    this.#options = options;
    this.server = createServer(
      {
        maxHeaderSize: WEB_LIMITS.requestHeaderBytes,
        headersTimeout: WEB_LIMITS.headersTimeoutMs,
        requestTimeout: 0,
      },
      (req, res) => {
        this.#handle(req, res).catch((error: unknown) => {
          if (error instanceof BodyError)
            sendError(res, error.status, "BAD_REQUEST", error.message);
          else if (error instanceof WardenError)
            sendError(res, statusOf(error), error.code, error.message, error.hint);
          else sendError(res, 500, "INTERNAL", "the server failed to answer");
        });
      },
    );
    this.server.maxConnections = WEB_LIMITS.connections;
    this.server.on("connection", (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once("close", () => this.#sockets.delete(socket));
    });
  }

  /** The Host values a browser sends for this server: its address and, on loopback, localhost. */
  answerTo(host: string, port: number): void {
    const bracketed = host.includes(":") ? `[${host}]` : host;
    this.#hosts.add(`${bracketed}:${port}`.toLowerCase());
    if (host === "127.0.0.1" || host === "::1") this.#hosts.add(`localhost:${port}`);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const plan = planRequest(
      { method: req.method ?? "", url: req.url ?? "/", headers: req.headers },
      { token: this.#options.token, hosts: this.#hosts },
    );
    if (plan.kind === "refuse") {
      req.resume();
      sendError(res, plan.status, "REFUSED", plan.message);
      return;
    }
    await this.#serve(plan.route, plan.setCookie, req, res);
  }

  async #serve(route: WebRoute, setCookie: boolean, req: IncomingMessage, res: ServerResponse) {
    const { tasks, page } = this.#options;
    switch (route.kind) {
      case "page": {
        res.writeHead(200, {
          ...SECURITY_HEADERS,
          "content-type": "text/html; charset=utf-8",
          ...(setCookie
            ? {
                "set-cookie": `${TOKEN_COOKIE}=${this.#options.token}; Path=/; HttpOnly; SameSite=Strict`,
              }
            : {}),
        });
        res.end(page.html);
        return;
      }
      case "asset": {
        const js = route.name === "app.js";
        res.writeHead(200, {
          ...SECURITY_HEADERS,
          "content-type": js ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8",
        });
        res.end(js ? page.js : page.css);
        return;
      }
      case "list": {
        const all = (await tasks.list({ known: this.#finished })).sort(
          (a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1),
        );
        this.#finished = new Map(
          all.filter((task) => task.finishedAt !== undefined).map((task) => [task.id, task]),
        );
        const start =
          route.before === undefined ? 0 : all.findIndex((t) => t.id === route.before) + 1;
        const slice = all.slice(start, start + WEB_LIMITS.listPage);
        const short = await tasks.shortIds(slice.map((t) => t.id));
        const rows = [];
        for (const task of slice) {
          const pending =
            task.finishedAt === undefined
              ? (await tasks.approvals(task.id)).filter((r) => r.state === "pending").length
              : 0;
          rows.push(taskRow(task, short.get(task.id) ?? task.id, pending));
        }
        sendJson(res, 200, {
          tasks: rows,
          total: all.length,
          more: start + slice.length < all.length,
        });
        return;
      }
      case "listFeed":
        return this.#listFeed(res);
      case "task": {
        const details = await tasks.get(route.ref);
        const approvals = await tasks.approvals(details.id);
        const inbox = await tasks.messages(details.id);
        sendJson(res, 200, taskPage(details, await tasks.shortId(details.id), approvals, inbox));
        return;
      }
      case "events":
        return this.#events(route.ref, route.since, res);
      case "diff": {
        const diff = await diffTask(tasks, route.ref, { commits: true });
        sendJson(res, 200, cleanJson(diff));
        return;
      }
      case "send": {
        const body = await readBody(req);
        if (typeof body.text !== "string" || body.text.trim() === "") {
          throw new BodyError(400, "a message needs its text");
        }
        const details = await tasks.get(route.ref);
        if (details.terminal === undefined) checkTakesMessages(details.id, details.spec.settings);
        const message = await tasks.send(details.id, body.text, { from: null });
        sendJson(res, 200, { id: details.id, n: message.n, state: message.state });
        return;
      }
      case "approve": {
        const body = await readBody(req);
        const decision = body.decision;
        if (!APPROVAL_DECISIONS.includes(decision as ApprovalDecision)) {
          throw new BodyError(400, `the decision is one of ${APPROVAL_DECISIONS.join(", ")}`);
        }
        const reason = typeof body.reason === "string" ? body.reason : undefined;
        const request = await tasks.approve(route.ref, route.n, decision as ApprovalDecision, {
          by: null,
          ...(reason === undefined ? {} : { reason }),
        });
        sendJson(res, 200, cleanJson(request));
        return;
      }
      case "cancel": {
        await readBody(req);
        const outcome = await tasks.cancel(route.ref, { by: null });
        sendJson(res, 200, cleanJson(outcome));
        return;
      }
      case "suspend": {
        const body = await readBody(req);
        if (body.now !== undefined && typeof body.now !== "boolean") {
          throw new BodyError(400, "`now` is true or false");
        }
        const outcome = await tasks.suspend(route.ref, { by: null, now: body.now === true });
        const when = suspendWhenOf(await tasks.get(outcome.id), outcome.request.now);
        sendJson(res, 200, cleanJson({ ...outcome, when }));
        return;
      }
      case "resume": {
        await readBody(req);
        const id = await suspendedTask(tasks, route.ref);
        await this.#options.runInBackground(id);
        sendJson(res, 200, { id, state: (await tasks.get(id)).state });
        return;
      }
      case "rerun": {
        await readBody(req);
        const made = await rerunTask(tasks, route.ref, { env: process.env });
        await this.#options.runInBackground(made.id);
        sendJson(res, 200, { id: made.id, state: (await tasks.get(made.id)).state });
        return;
      }
    }
  }

  /** Whether another feed may open; the caller must call the returned release when it ends. */
  #takeFeed(res: ServerResponse): (() => void) | undefined {
    if (this.#feeds >= WEB_LIMITS.feeds) {
      sendError(res, 503, "TOO_MANY_FEEDS", "too many live views are open; close some pages");
      return undefined;
    }
    this.#feeds++;
    return () => {
      this.#feeds--;
    };
  }

  async #listFeed(res: ServerResponse): Promise<void> {
    const release = this.#takeFeed(res);
    if (release === undefined) return;
    const stream = new EventStream(res);
    // Each notice names the tasks it was about, so a task's page reloads on its own changes:
    // a suspension is only whole once the executor lets go, after its last event.
    const watch = new ListWatch(this.#options.tasks.dataDir, (changed) => {
      void stream.send(
        "changed",
        changed.size > WEB_LIMITS.feedTaskIds ? {} : { tasks: [...changed] },
      );
    });
    await stream.send("changed", {});
    await new Promise<void>((resolve) => {
      stream.closed.addEventListener(
        "abort",
        () => {
          resolve();
        },
        { once: true },
      );
    });
    watch.close();
    release();
  }

  async #events(ref: string, since: number, res: ServerResponse): Promise<void> {
    const tasks = this.#options.tasks;
    const id = await tasks.resolve(ref);
    const release = this.#takeFeed(res);
    if (release === undefined) return;
    const stream = new EventStream(res);
    try {
      for await (const event of tasks.watch(id, { since, signal: stream.closed })) {
        // `shown` is what `warden watch` prints for the event, so the page and the CLI say the same.
        const shown = eventText(event.type, event);
        const sent = shown === undefined ? event : { ...event, shown };
        await stream.send("task", cleanJson(sent), event.seq);
      }
      if (!stream.closed.aborted) {
        await stream.send("end", {});
        stream.end();
      }
    } finally {
      release();
    }
  }

  async listen(host: string, port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    const bound = (this.server.address() as AddressInfo).port;
    this.answerTo(host, bound);
    return bound;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }
}

/** Starts the server; the caller checks the address first (checkListen). */
export async function startWebServer(options: WebServerOptions): Promise<RunningWebServer> {
  const server = new WebServer(options);
  const port = await server.listen(options.host, options.port);
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/?token=${options.token}`,
    port,
    close: () => server.close(),
  };
}
