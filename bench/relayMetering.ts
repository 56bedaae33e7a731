// The latency the relay's metering adds to a model request: the same streamed answers through
// two relays in front of the same local upstream, one with a spending gate (every answer's
// usage read, priced and recorded, the gate asked before each request) and one without.
// Answers: a typical Anthropic turn (message_start, 40 text deltas, message_delta), an OpenAI
// Responses turn whose response.completed repeats a 64 KiB answer, and a long 4 MiB Anthropic
// stream. Each figure is the median over rounds of each round's median; the two relays
// alternate so a noisy neighbour hits both alike.
// Run: node --import tsx bench/relayMetering.ts [--quick]
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startRelay, type RequestUsage, type SpendGate } from "../src/egress/index.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const REQUESTS = quick ? 200 : 1_000;
const LONG_REQUESTS = quick ? 5 : 20;
const ROUNDS = quick ? 3 : 7;

function sse(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

function anthropicTurn(deltas: number, text: string): Buffer {
  const parts = [
    sse("message_start", {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [],
        usage: { input_tokens: 5000, output_tokens: 1, cache_read_input_tokens: 20_000 },
      },
    }),
    sse("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
  ];
  for (let i = 0; i < deltas; i++) {
    parts.push(sse("content_block_delta", { index: 0, delta: { type: "text_delta", text } }));
  }
  parts.push(
    sse("content_block_stop", { index: 0 }),
    sse("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 400 } }),
    sse("message_stop", {}),
  );
  return Buffer.from(parts.join(""));
}

function openaiTurn(): Buffer {
  const text = "x".repeat(64 * 1024);
  return Buffer.from(
    sse("response.created", { response: { id: "r", model: "gpt-5-codex" } }) +
      sse("response.output_text.delta", { delta: text }) +
      sse("response.completed", {
        response: {
          id: "r",
          model: "gpt-5-codex",
          output: [{ type: "message", content: [{ type: "output_text", text }] }],
          usage: {
            input_tokens: 9000,
            input_tokens_details: { cached_tokens: 8000 },
            output_tokens: 700,
            output_tokens_details: { reasoning_tokens: 300 },
          },
        },
      }),
  );
}

const ANSWERS: Record<string, Buffer> = {
  "/v1/messages": anthropicTurn(40, "Hello, this is a few words of text. "),
  "/v1/messages/long": anthropicTurn(40_000, "x".repeat(90)),
  "/responses": openaiTurn(),
};

/** Writes the answer in 16 KiB chunks, as a socket delivers a stream. */
const upstream = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const answer = ANSWERS[req.headers["x-long"] === undefined ? path : `${path}/long`];
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (let at = 0; answer !== undefined && at < answer.length; at += 16 * 1024) {
      res.write(answer.subarray(at, at + 16 * 1024));
    }
    res.end();
  });
});

function timed(socketPath: string, agent: Agent, path: string, long: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request({
      socketPath,
      agent,
      path,
      method: "POST",
      headers: { "content-type": "application/json", ...(long ? { "x-long": "1" } : {}) },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => {
        resolve(performance.now() - started);
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end("{}");
  });
}

type Case = "anthropic" | "openai" | "long";
const CASES: readonly { name: Case; path: string; long: boolean; count: number }[] = [
  { name: "anthropic", path: "/v1/messages", long: false, count: REQUESTS },
  { name: "openai", path: "/responses", long: false, count: REQUESTS },
  { name: "long", path: "/v1/messages", long: true, count: LONG_REQUESTS },
];

async function round(socketPath: string): Promise<Record<Case, number>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out = { anthropic: 0, openai: 0, long: 0 };
  try {
    for (const c of CASES) {
      for (let i = 0; i < Math.min(20, c.count); i++)
        await timed(socketPath, agent, c.path, c.long);
      const times: number[] = [];
      for (let i = 0; i < c.count; i++) times.push(await timed(socketPath, agent, c.path, c.long));
      out[c.name] = median(times);
    }
    return out;
  } finally {
    agent.destroy();
  }
}

/** A gate as the host's may be: it sums what it is told and never refuses. */
function summingGate(): SpendGate & { spent(): number } {
  let cost = 0;
  return {
    check: () => undefined,
    record: (increase: RequestUsage) => {
      cost += increase.costUSD;
    },
    spent: () => cost,
  };
}

const dir = await mkdtemp(join(tmpdir(), "warden-bench-"));
await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
const address = upstream.address();
const port = typeof address === "object" && address !== null ? address.port : 0;
const base = {
  upstream: `http://127.0.0.1:${port}`,
  apiKey: "bench-real-key",
  placeholderKey: "placeholder",
};
const gate = summingGate();
const plain = await startRelay({ ...base, api: "anthropic", socketPath: join(dir, "off.sock") });
const metered = await startRelay({
  ...base,
  api: "anthropic",
  socketPath: join(dir, "on.sock"),
  spend: gate,
});
// /responses is on the OpenAI relay's list, not Anthropic's: a second pair for it.
const plainOpenai = await startRelay({
  ...base,
  api: "openai",
  apiKey: "sk-bench-real-key",
  placeholderKey: "sk-placeholder",
  socketPath: join(dir, "off-o.sock"),
});
const meteredOpenai = await startRelay({
  ...base,
  api: "openai",
  apiKey: "sk-bench-real-key",
  placeholderKey: "sk-placeholder",
  socketPath: join(dir, "on-o.sock"),
  spend: gate,
});

async function roundPair(on: boolean): Promise<Record<Case, number>> {
  const anthropic = await round(join(dir, on ? "on.sock" : "off.sock"));
  const openai = await round(join(dir, on ? "on-o.sock" : "off-o.sock"));
  return { anthropic: anthropic.anthropic, long: anthropic.long, openai: openai.openai };
}

try {
  const off: Record<Case, number>[] = [];
  const on: Record<Case, number>[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    off.push(await roundPair(false));
    on.push(await roundPair(true));
  }
  console.log(
    `relay metering: a spending gate on against off, same relay and upstream${quick ? " (quick)" : ""}`,
  );
  console.log(
    `  median of ${ROUNDS} rounds, each the median of its requests (keep-alive, one at a time)`,
  );
  const label: Record<Case, string> = {
    anthropic: `Anthropic turn, 40 deltas (${REQUESTS} requests)`,
    openai: `OpenAI turn, 64 KiB response.completed (${REQUESTS} requests)`,
    long: `Anthropic stream of ${(ANSWERS["/v1/messages/long"]?.length ?? 0) >> 20} MiB (${LONG_REQUESTS} requests)`,
  };
  for (const c of CASES) {
    const a = median(off.map((f) => f[c.name]));
    const b = median(on.map((f) => f[c.name]));
    console.log(
      `  ${label[c.name]}: off ${(a * 1000).toFixed(0)} µs, on ${(b * 1000).toFixed(0)} µs, ` +
        `added ${((b - a) * 1000).toFixed(0)} µs, ratio ${(b / a).toFixed(2)}x`,
    );
  }
  if (!(gate.spent() > 0)) throw new Error("the metered relay recorded no cost");
} finally {
  await Promise.all([plain.close(), metered.close(), plainOpenai.close(), meteredOpenai.close()]);
  await new Promise<void>((resolve) =>
    upstream.close(() => {
      resolve();
    }),
  );
  await rm(dir, { recursive: true, force: true });
}
