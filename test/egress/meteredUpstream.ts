// What the metering tests share: an upstream that answers with exact bytes in exact chunks,
// a spending gate that records what the relay tells it and refuses past a cap, a POST to a
// relay's socket that keeps every byte of the answer, and each API's canonical answers.
import { createServer, request, type Server } from "node:http";
import type { RequestUsage, SpendGate } from "../../src/egress/index.js";
import { readAnswer, type Answer } from "./relayFixture.js";

/** One answer of the raw upstream: its status, Content-Type and body, in these chunks. */
export interface RawAnswer {
  readonly status?: number;
  readonly contentType: string;
  readonly chunks: readonly Buffer[];
}

export interface RawUpstream {
  readonly server: Server;
  /** The paths of the requests it received, in order. */
  readonly paths: string[];
}

/**
 * An upstream that answers each request with the next answer (the last one once they run
 * out), writing each chunk on its own turn of the event loop so that they travel apart. With
 * `gather`, it answers nothing until that many requests are in: they are then all in flight.
 */
export function rawUpstream(answers: readonly RawAnswer[], gather = 1): RawUpstream {
  const paths: string[] = [];
  const waiting: (() => void)[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      paths.push(req.url ?? "");
      const answer = answers[Math.min(paths.length - 1, answers.length - 1)];
      waiting.push(() => {
        send(answer);
      });
      if (paths.length >= gather) for (const go of waiting.splice(0)) go();
    });
    const send = (answer: RawAnswer | undefined): void => {
      if (answer === undefined) {
        res.writeHead(500).end();
        return;
      }
      res.writeHead(answer.status ?? 200, { "content-type": answer.contentType });
      const chunks = [...answer.chunks];
      const next = (): void => {
        const chunk = chunks.shift();
        if (chunk === undefined) {
          res.end();
          return;
        }
        res.write(chunk);
        setImmediate(next);
      };
      next();
    };
  });
  return { server, paths };
}

/** Splits `bytes` at the given offsets (sorted, deduplicated, inside the buffer). */
export function splitAt(bytes: Buffer, offsets: readonly number[]): Buffer[] {
  const cuts = [...new Set(offsets.filter((o) => o > 0 && o < bytes.length))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const cut of cuts) {
    chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  chunks.push(bytes.subarray(from));
  return chunks;
}

export interface RecordingGate extends SpendGate {
  readonly records: RequestUsage[];
  readonly checks: number;
  /** The sum of every recorded increase, field by field; the model is the last one named. */
  total(): RequestUsage;
}

/** A gate that records every increase and refuses once the recorded cost reaches `capUSD`. */
export function recordingGate(capUSD = Number.POSITIVE_INFINITY): RecordingGate {
  const records: RequestUsage[] = [];
  let checks = 0;
  const total = (): RequestUsage => {
    const sum = {
      model: records.at(-1)?.model ?? "none",
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
      costUSD: 0,
    };
    for (const r of records) {
      sum.inputTokens += r.inputTokens;
      sum.outputTokens += r.outputTokens;
      sum.cacheReadTokens += r.cacheReadTokens;
      sum.cacheWriteTokens += r.cacheWriteTokens;
      sum.reasoningTokens += r.reasoningTokens;
      sum.costUSD += r.costUSD;
    }
    return sum;
  };
  return {
    records,
    get checks() {
      return checks;
    },
    total,
    check() {
      checks += 1;
      const spent = total().costUSD;
      return spent >= capUSD
        ? {
            message: `the task's spending cap of $${capUSD} is reached ($${spent.toFixed(4)} spent)`,
          }
        : undefined;
    },
    record(increase) {
      records.push(increase);
    },
  };
}

/** A POST to the relay's socket; the answer's body is kept byte for byte (latin1). */
export function postTo(socketPath: string, path: string, body = "{}"): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath,
      path,
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    req.on("response", (res) => {
      readAnswer(res, "latin1").then(resolve, reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Server-sent events, as each API frames them. */
export function events(list: readonly (readonly [string | undefined, unknown])[]): Buffer {
  return Buffer.from(
    list
      .map(
        ([name, data]) =>
          `${name === undefined ? "" : `event: ${name}\n`}data: ${JSON.stringify(data)}\n\n`,
      )
      .join(""),
  );
}

/** Anthropic's stream: message_start with the input and cache counts, message_delta with output. */
export function anthropicStream(model: string, output: number): Buffer {
  return events([
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model,
          content: [],
          usage: {
            input_tokens: 1000,
            output_tokens: 1,
            cache_read_input_tokens: 20_000,
            cache_creation_input_tokens: 3000,
          },
        },
      },
    ],
    ["ping", { type: "ping" }],
    [
      "content_block_start",
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    ],
    [
      "content_block_delta",
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "usage: hello" },
      },
    ],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: output },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

/** OpenAI Responses' stream, its usage in response.completed. */
export function openaiStream(model: string): Buffer {
  return events([
    ["response.created", { type: "response.created", response: { id: "resp_1", model } }],
    ["response.output_text.delta", { type: "response.output_text.delta", delta: "hi" }],
    [
      "response.completed",
      {
        type: "response.completed",
        response: {
          id: "resp_1",
          model,
          usage: {
            input_tokens: 10_000,
            input_tokens_details: { cached_tokens: 8000 },
            output_tokens: 500,
            output_tokens_details: { reasoning_tokens: 300 },
            total_tokens: 10_500,
          },
        },
      },
    ],
  ]);
}

/** One Gemini answer chunk, with its usage when given. */
export function geminiChunk(
  model: string,
  usage?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    candidates: [{ content: { role: "model", parts: [{ text: "hi" }] }, index: 0 }],
    ...(usage === undefined ? {} : { usageMetadata: usage }),
    modelVersion: model,
  };
}

export const GEMINI_USAGE = {
  promptTokenCount: 10_000,
  cachedContentTokenCount: 4000,
  candidatesTokenCount: 200,
  thoughtsTokenCount: 100,
  totalTokenCount: 10_300,
};
