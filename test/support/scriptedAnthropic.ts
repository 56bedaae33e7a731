// A scripted Anthropic Messages API on 127.0.0.1: a real HTTP server that streams each answer
// the way the real API does (server-sent events: message_start, content blocks with their
// deltas, message_delta with the stop reason and usage, message_stop), one scripted turn per
// model request. It records every request it gets, headers and JSON body, so a test can assert
// what the model was shown and with which key.
//
// Requests that are not the agent's conversation (count_tokens, a model listing, a probe of the
// base URL, a side query without tools) are answered sensibly and recorded, never taken from
// the script, so a CLI that makes them neither hangs nor eats a scripted turn.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** Token counts for one scripted answer; what the agent prices its budget with. */
export interface ScriptedUsage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** One answer of the model, taken in order by each conversation request. */
export type ScriptedTurn =
  /** Plain text that ends the model's turn. */
  | { readonly kind: "text"; readonly text: string; readonly usage?: ScriptedUsage }
  /** A tool call (after an optional sentence); the agent runs it and asks again. */
  | {
      readonly kind: "tool_use";
      readonly name: string;
      readonly input: Readonly<Record<string, unknown>>;
      readonly text?: string;
      readonly usage?: ScriptedUsage;
    }
  /** The API refuses the request with this status and an API error body. */
  | {
      readonly kind: "error";
      readonly status: number;
      readonly type: string;
      readonly message: string;
      /**
       * Answer this many requests in a row with the same error (the agent's retries, and for a
       * 400 its attempts with fewer beta headers); Infinity answers every request from here on.
       */
      readonly times?: number;
      /**
       * Answer every request with the error until the time this gives (ms since the epoch,
       * asked at each request), then go on with the script: a limit that resets then.
       * Overrides `times`.
       */
      readonly until?: () => number;
      /** Headers of the error answer, made when it is sent (a reset time relative to now). */
      readonly headers?: () => Record<string, string>;
    }
  /**
   * A stream that starts, writes the text and then stalls: for `stallMs` before it finishes
   * normally, or, without it, until the client goes away or the server closes.
   */
  | {
      readonly kind: "slow";
      readonly text: string;
      readonly stallMs?: number;
      readonly usage?: ScriptedUsage;
    };

/** A request as the server received it. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body parsed as JSON, when it was JSON. */
  readonly body: unknown;
  /** What the server made of it. */
  readonly kind: "turn" | "side" | "count_tokens" | "models" | "unknown";
  /** For a turn: how many turns were answered before it, or -1 when the script had run out. */
  readonly turn?: number;
}

/** The model's answer after the script ran out: a 400, which agents do not retry. */
const EXHAUSTED_MESSAGE = "the scripted API has no turn left for this request";

/** Bodies larger than this are refused: no test sends more. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The models the listing names, so a CLI that checks its model finds it. */
const LISTED_MODELS = ["claude-opus-5-5", "claude-sonnet-4-5", "claude-haiku-4-5"];

export interface ScriptedAnthropic {
  /** `http://127.0.0.1:<port>`: the agent's ANTHROPIC_BASE_URL. */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** The conversation requests alone, in order. */
  turns(): RecordedRequest[];
  /** Resolves with the first recorded request (past or future) that matches. */
  waitFor(match: (r: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  /** Appends turns to the script, e.g. the answer to a message sent mid-run. */
  push(...turns: ScriptedTurn[]): void;
  close(): Promise<void>;
}

function sse(res: ServerResponse, type: string, data: Record<string, unknown>): void {
  res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function sendJson(res: ServerResponse, status: number, value: unknown, requestId: string): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "request-id": requestId,
  });
  res.end(body);
}

function apiError(
  res: ServerResponse,
  status: number,
  error: { type: string; message: string },
  id: string,
  headers: Record<string, string> = {},
): void {
  const body = JSON.stringify({
    type: "error",
    error: { type: error.type, message: error.message },
    request_id: id,
  });
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "request-id": id,
  });
  res.end(body);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error("request body too large for the scripted API");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A conversation request streams and offers tools; anything else is a side query. */
function isConversation(body: unknown): boolean {
  return isRecord(body) && body.stream === true && Array.isArray(body.tools);
}

/** Streams one scripted answer as the Messages API does. */
async function streamTurn(
  res: ServerResponse,
  turn: Exclude<ScriptedTurn, { kind: "error" }>,
  model: string,
  serial: number,
  closing: AbortSignal,
): Promise<void> {
  const usage = turn.usage ?? {};
  const inputTokens = usage.inputTokens ?? 100;
  const outputTokens = usage.outputTokens ?? 20;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": `req_scripted${serial}`,
  });
  sse(res, "message_start", {
    message: {
      id: `msg_scripted${serial}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  });
  sse(res, "ping", {});
  let index = 0;
  const text = turn.kind === "tool_use" ? turn.text : turn.text;
  if (text !== undefined && text !== "") {
    sse(res, "content_block_start", { index, content_block: { type: "text", text: "" } });
    // Two deltas, as the API splits text, so the agent must join them.
    const half = Math.ceil(text.length / 2);
    sse(res, "content_block_delta", {
      index,
      delta: { type: "text_delta", text: text.slice(0, half) },
    });
    if (turn.kind === "slow") {
      await stall(turn.stallMs, res, closing);
      if (res.destroyed) return;
    }
    sse(res, "content_block_delta", {
      index,
      delta: { type: "text_delta", text: text.slice(half) },
    });
    sse(res, "content_block_stop", { index });
    index += 1;
  }
  let stopReason = "end_turn";
  if (turn.kind === "tool_use") {
    stopReason = "tool_use";
    const json = JSON.stringify(turn.input);
    const cut = Math.ceil(json.length / 2);
    sse(res, "content_block_start", {
      index,
      content_block: {
        type: "tool_use",
        id: `toolu_scripted${serial}`,
        name: turn.name,
        input: {},
      },
    });
    sse(res, "content_block_delta", {
      index,
      delta: { type: "input_json_delta", partial_json: json.slice(0, cut) },
    });
    sse(res, "content_block_delta", {
      index,
      delta: { type: "input_json_delta", partial_json: json.slice(cut) },
    });
    sse(res, "content_block_stop", { index });
  }
  sse(res, "message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  });
  sse(res, "message_stop", {});
  res.end();
}

/** Waits `ms`, or (without it) until the client leaves or the server closes. */
async function stall(ms: number | undefined, res: ServerResponse, closing: AbortSignal) {
  const gone = new Promise<void>((resolve) => {
    res.once("close", () => {
      resolve();
    });
    closing.addEventListener(
      "abort",
      () => {
        resolve();
      },
      { once: true },
    );
  });
  if (ms === undefined) {
    await gone;
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    gone,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** Starts a scripted API that answers its conversation requests with `script`, in order. */
export async function startScriptedAnthropic(
  script: readonly ScriptedTurn[],
): Promise<ScriptedAnthropic> {
  // Each entry answers `left` requests before the next one's turn: 1, except an error's `times`.
  const queue: { turn: ScriptedTurn; left: number }[] = [];
  const enqueue = (turns: readonly ScriptedTurn[]) => {
    for (const turn of turns)
      queue.push({
        turn,
        left: turn.kind !== "error" ? 1 : turn.until !== undefined ? Infinity : (turn.times ?? 1),
      });
  };
  enqueue(script);
  const requests: RecordedRequest[] = [];
  const waiters = new Set<(r: RecordedRequest) => void>();
  const closing = new AbortController();
  let answered = 0;
  let serial = 0;

  const record = (r: RecordedRequest) => {
    requests.push(r);
    for (const waiter of [...waiters]) waiter(r);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const bytes = await readBody(req);
    const body = parseJson(bytes);
    const path = req.url ?? "/";
    const base = { method: req.method ?? "", path, headers: { ...req.headers }, body };
    serial += 1;
    const id = `req_scripted${serial}`;
    const route = path.split("?")[0];
    if (req.method === "POST" && route === "/v1/messages/count_tokens") {
      record({ ...base, kind: "count_tokens" });
      sendJson(res, 200, { input_tokens: 100 }, id);
      return;
    }
    if (req.method === "GET" && route === "/v1/models") {
      record({ ...base, kind: "models" });
      const data = LISTED_MODELS.map((m) => ({
        type: "model",
        id: m,
        display_name: m,
        created_at: "2025-01-01T00:00:00Z",
      }));
      sendJson(
        res,
        200,
        { data, has_more: false, first_id: data[0]?.id, last_id: data.at(-1)?.id },
        id,
      );
      return;
    }
    if (req.method === "POST" && route === "/v1/messages") {
      const model = isRecord(body) && typeof body.model === "string" ? body.model : "unknown";
      if (!isConversation(body)) {
        record({ ...base, kind: "side" });
        sendJson(
          res,
          200,
          {
            id: `msg_side${serial}`,
            type: "message",
            role: "assistant",
            model,
            content: [{ type: "text", text: "ok" }],
            stop_reason: "end_turn",
            stop_sequence: null,
            usage: { input_tokens: 1, output_tokens: 1 },
          },
          id,
        );
        return;
      }
      // An error that holds until a time gives way to the rest of the script once it has come.
      const head = queue[0]?.turn;
      if (head?.kind === "error" && head.until !== undefined && Date.now() >= head.until()) {
        queue.shift();
      }
      const entry = queue[0];
      const turn = entry?.turn;
      if (entry !== undefined) {
        entry.left -= 1;
        if (entry.left <= 0) queue.shift();
      }
      record({ ...base, kind: "turn", turn: turn === undefined ? -1 : answered });
      answered += 1;
      if (turn === undefined) {
        apiError(res, 400, { type: "invalid_request_error", message: EXHAUSTED_MESSAGE }, id);
        return;
      }
      if (turn.kind === "error") {
        apiError(res, turn.status, turn, id, turn.headers?.());
        return;
      }
      await streamTurn(res, turn, model, serial, closing.signal);
      return;
    }
    record({ ...base, kind: "unknown" });
    if (req.method === "HEAD") {
      res.writeHead(200);
      res.end();
      return;
    }
    apiError(
      res,
      404,
      { type: "not_found_error", message: "the scripted API does not serve this path" },
      id,
    );
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        apiError(res, 500, { type: "api_error", message: String(error) }, "req_scripted_failure");
      } else {
        res.destroy();
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turns: () => requests.filter((r) => r.kind === "turn"),
    waitFor(match, timeoutMs = 60_000) {
      const found = requests.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`the scripted API saw no such request within ${timeoutMs} ms`));
        }, timeoutMs);
        const waiter = (r: RecordedRequest) => {
          if (!match(r)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(r);
        };
        waiters.add(waiter);
      });
    },
    push(...turns) {
      enqueue(turns);
    },
    async close() {
      closing.abort();
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
