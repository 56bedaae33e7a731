// A scripted OpenAI Responses API on 127.0.0.1, as Codex CLI talks to a custom model provider
// (`wire_api = "responses"`): each POST to <base>/responses is answered by the next scripted
// turn as a server-sent event stream (response.created, the output items, response.completed
// with its usage). It records every request, headers and JSON body, so a test can assert what
// the model was shown and with which key. Any other request is answered 404 and recorded.
import { once } from "node:events";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEFAULT_USAGE,
  readJsonBody,
  type RecordedRequest,
  type ScriptedUsage,
} from "./recordedRequest.js";

/** One answer of the model, taken in order by each request for a response. */
export type ScriptedResponse =
  /** An assistant message that ends the model's turn. */
  | { readonly kind: "text"; readonly text: string; readonly usage?: ScriptedUsage }
  /** A call of Codex's `exec_command` tool; Codex runs it and asks again. */
  | { readonly kind: "command"; readonly cmd: string; readonly usage?: ScriptedUsage }
  /**
   * The API refuses the request with this status, an error body and any headers; with `until`,
   * every request is refused so until that time (ms since the epoch), and the script goes on after.
   */
  | {
      readonly kind: "error";
      readonly status: number;
      readonly message: string;
      readonly headers?: () => Record<string, string>;
      readonly until?: () => number;
    }
  /** A stream that begins and never ends: the model "thinks" until the client goes away. */
  | { readonly kind: "hold" };

export type { RecordedRequest, ScriptedUsage };

export interface ScriptedOpenAI {
  /** `http://127.0.0.1:<port>/v1`: the provider's base_url. */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** The bodies of the requests for responses, in order. */
  responseBodies(): unknown[];
  close(): Promise<void>;
}

function usageOf(usage: ScriptedUsage) {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function answer(response: ServerResponse, turn: ScriptedResponse | undefined, n: number): void {
  if (turn === undefined || turn.kind === "error") {
    const status = turn?.status ?? 400;
    const message = turn?.message ?? "the scripted API has no response left";
    response.writeHead(status, { "content-type": "application/json", ...turn?.headers?.() });
    response.end(JSON.stringify({ error: { message, type: "scripted_error", code: status } }));
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  if (turn.kind === "hold") {
    response.write(
      `event: response.created\ndata: ${JSON.stringify({ type: "response.created", response: { id: `resp_${n}` } })}\n\n`,
    );
    return;
  }
  const send = (event: Record<string, unknown> & { type: string }) => {
    response.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  const id = `resp_${n}`;
  send({ type: "response.created", response: { id } });
  const item =
    turn.kind === "text"
      ? {
          type: "message",
          role: "assistant",
          id: `msg_${n}`,
          content: [{ type: "output_text", text: turn.text }],
        }
      : {
          type: "function_call",
          name: "exec_command",
          arguments: JSON.stringify({ cmd: turn.cmd }),
          call_id: `call_${n}`,
        };
  send({ type: "response.output_item.done", item });
  send({
    type: "response.completed",
    response: { id, usage: usageOf(turn.usage ?? DEFAULT_USAGE) },
  });
  response.end();
}

/** The turn to answer next: past an error whose `until` has come. */
function pastLimit(script: readonly ScriptedResponse[], next: number): number {
  const turn = script[next];
  return turn?.kind === "error" && turn.until !== undefined && Date.now() >= turn.until()
    ? next + 1
    : next;
}

/** Whether a turn answers the requests after it too: an error that holds until a time. */
function holds(turn: ScriptedResponse | undefined): boolean {
  return turn?.kind === "error" && turn.until !== undefined;
}

/** Starts the server with its script; every request for a response takes the next turn. */
export async function startScriptedOpenAI(
  script: readonly ScriptedResponse[],
): Promise<ScriptedOpenAI> {
  const requests: RecordedRequest[] = [];
  let next = 0;
  const server: Server = createServer((request, response) => {
    readJsonBody(request).then(
      (body) => {
        const path = request.url ?? "";
        requests.push({ method: request.method ?? "", path, headers: request.headers, body });
        if (request.method === "POST" && path.split("?")[0]?.endsWith("/responses")) {
          next = pastLimit(script, next);
          const turn = script[next];
          answer(response, turn, next);
          if (!holds(turn)) next += 1;
          return;
        }
        response.writeHead(404, { "content-type": "application/json" });
        response.end("{}");
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
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    responseBodies: () =>
      requests
        .filter((r) => r.method === "POST" && r.path.split("?")[0]?.endsWith("/responses"))
        .map((r) => r.body),
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
