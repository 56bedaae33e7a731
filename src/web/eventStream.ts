// A server-sent event stream on one answer: events as `id`/`event`/`data` lines, a comment now
// and then so that nothing between closes a quiet stream, and backpressure: a slow reader makes
// the writer wait, never the server buffer without end.
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { WEB_LIMITS } from "./limits.js";
import { SECURITY_HEADERS } from "./securityHeaders.js";

export class EventStream {
  readonly #res: ServerResponse;
  readonly #keepAlive: NodeJS.Timeout;
  readonly closed: AbortSignal;

  constructor(res: ServerResponse) {
    this.#res = res;
    const controller = new AbortController();
    this.closed = controller.signal;
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "content-type": "text/event-stream; charset=utf-8",
      connection: "keep-alive",
    });
    res.flushHeaders();
    this.#keepAlive = setInterval(() => res.write(": still here\n\n"), WEB_LIMITS.keepAliveMs);
    res.on("close", () => {
      clearInterval(this.#keepAlive);
      controller.abort();
    });
  }

  /** Sends one event; `data` is JSON on one line, as JSON.stringify writes it. */
  async send(event: string, data: unknown, id?: number): Promise<void> {
    if (this.closed.aborted) return;
    const head = id === undefined ? "" : `id: ${id}\n`;
    if (!this.#res.write(`${head}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)) {
      await once(this.#res, "drain", { signal: this.closed }).catch(() => undefined);
    }
  }

  end(): void {
    clearInterval(this.#keepAlive);
    this.#res.end();
  }
}
