// A scripted Gemini API on 127.0.0.1, as Gemini CLI talks to GOOGLE_GEMINI_BASE_URL: each POST
// to /v1beta/models/<model>:streamGenerateContent is answered by the next scripted turn as a
// server-sent event stream (one chunk with the candidate's parts and the usage), and
// :generateContent (a side call, such as a routing or summary request) gets a short text without
// taking a turn. It records every request, headers and JSON body, so a test can assert what the
// model was shown and with which key. Any other request is answered 404 and recorded.
import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEFAULT_USAGE,
  readJsonBody,
  type RecordedRequest,
  type ScriptedUsage,
} from "./recordedRequest.js";

/** One answer of the model, taken in order by each streamed request. */
export type ScriptedGeminiTurn =
  /** Text that ends the model's turn. */
  | { readonly kind: "text"; readonly text: string; readonly usage?: ScriptedUsage }
  /** A call of one of Gemini CLI's tools (after an optional sentence); Gemini runs it. */
  | {
      readonly kind: "call";
      readonly name: string;
      readonly args: Readonly<Record<string, unknown>>;
      readonly text?: string;
      readonly usage?: ScriptedUsage;
    }
  /**
   * The API refuses the request with this status, an error body (with `details`, when given) and
   * any headers; with `until`, every request is refused so until that time (ms since the epoch),
   * and the script goes on after.
   */
  | {
      readonly kind: "error";
      readonly status: number;
      readonly message: string;
      readonly details?: () => unknown[];
      readonly headers?: () => Record<string, string>;
      readonly until?: () => number;
    }
  /** A stream that begins and never ends: the model "thinks" until the client goes away. */
  | { readonly kind: "hold" };

export type { RecordedRequest, ScriptedUsage };

export interface ScriptedGemini {
  /** `http://127.0.0.1:<port>`: the agent's GOOGLE_GEMINI_BASE_URL. */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** The bodies of the streamed (conversation) requests, in order. */
  turnBodies(): unknown[];
  close(): Promise<void>;
}

const STREAMED = ":streamGenerateContent";

function candidate(parts: unknown[], usage: ScriptedUsage) {
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
    usageMetadata: {
      promptTokenCount: usage.inputTokens,
      candidatesTokenCount: usage.outputTokens,
      totalTokenCount: usage.inputTokens + usage.outputTokens,
    },
    modelVersion: "gemini-scripted",
  };
}

function answerTurn(response: ServerResponse, turn: ScriptedGeminiTurn | undefined): void {
  if (turn === undefined || turn.kind === "error") {
    const status = turn?.status ?? 400;
    const message = turn?.message ?? "the scripted API has no turn left";
    const details = turn?.details?.();
    response.writeHead(status, { "content-type": "application/json", ...turn?.headers?.() });
    response.end(
      JSON.stringify({
        error: {
          code: status,
          message,
          status: status === 429 ? "RESOURCE_EXHAUSTED" : "SCRIPTED",
          ...(details === undefined ? {} : { details }),
        },
      }),
    );
    return;
  }
  if (turn.kind === "hold") {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    return;
  }
  const parts: unknown[] = [];
  if (turn.kind === "text") parts.push({ text: turn.text });
  else {
    if (turn.text !== undefined) parts.push({ text: turn.text });
    parts.push({ functionCall: { name: turn.name, args: turn.args } });
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  response.write(`data: ${JSON.stringify(candidate(parts, turn.usage ?? DEFAULT_USAGE))}\n\n`);
  response.end();
}

/** Starts the server with its script; every streamed request takes the next turn. */
export async function startScriptedGemini(
  script: readonly ScriptedGeminiTurn[],
): Promise<ScriptedGemini> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  const server: Server = createServer((request, response) => {
    readJsonBody(request).then(
      (body) => {
        const path = request.url ?? "";
        requests.push({ method: request.method ?? "", path, headers: request.headers, body });
        if (request.method === "POST" && path.includes(STREAMED)) {
          const held = script[next];
          if (held?.kind === "error" && held.until !== undefined && Date.now() >= held.until()) {
            next += 1;
          }
          const turn = script[next];
          answerTurn(response, turn);
          if (turn?.kind !== "error" || turn.until === undefined) next += 1;
        } else if (request.method === "POST" && path.includes(":generateContent")) {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify(candidate([{ text: "{}" }], DEFAULT_USAGE)));
        } else if (request.method === "POST" && path.includes(":countTokens")) {
          response.writeHead(200, { "content-type": "application/json" });
          response.end(JSON.stringify({ totalTokens: 10 }));
        } else {
          response.writeHead(404, { "content-type": "application/json" });
          response.end("{}");
        }
      },
      () => {
        response.writeHead(413);
        response.end();
      },
    );
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turnBodies: () =>
      requests.filter((r) => r.method === "POST" && r.path.includes(STREAMED)).map((r) => r.body),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
