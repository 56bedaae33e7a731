import { strict as assert } from "node:assert";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startRelay, type RequestUsage } from "../../src/egress/index.js";
import { RELAY_APIS, relayErrorBody, type ApiKind } from "../../src/egress/relayApis.js";
import { startScriptedAnthropic } from "../support/scriptedAnthropic.js";
import { startScriptedGemini } from "../support/scriptedGemini.js";
import { startScriptedOpenAI } from "../support/scriptedOpenAI.js";
import { tempDir } from "./localPeers.js";
import {
  anthropicStream,
  events,
  GEMINI_USAGE,
  geminiChunk,
  openaiStream,
  postTo,
  rawUpstream,
  recordingGate,
  splitAt,
  type RawAnswer,
  type RecordingGate,
} from "./meteredUpstream.js";
import { withRelayOver } from "./relayFixture.js";

const KEYS: Record<ApiKind, { apiKey: string; placeholderKey: string }> = {
  anthropic: {
    apiKey: "sk-ant-real-meter-0123456789",
    placeholderKey: "sk-ant-warden-placeholder-m",
  },
  openai: { apiKey: "sk-real-meter-0123456789", placeholderKey: "sk-warden-placeholder-m" },
  gemini: { apiKey: "AIza-real-meter-0123456789", placeholderKey: "warden-placeholder-m" },
};

/** The metered model request of each API, as its agent sends it. */
const MODEL_PATH: Record<ApiKind, string> = {
  anthropic: "/v1/messages?beta=true",
  openai: "/responses",
  gemini: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
};

function near(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} is not ${expected}`);
}

/** Sends one request through a metered relay in front of `answers`; returns the gate too. */
async function throughRelay(
  api: ApiKind,
  answers: readonly RawAnswer[],
  path = MODEL_PATH[api],
  gate: RecordingGate = recordingGate(),
  onUnpricedModel?: (model: string) => void,
): Promise<{ body: Buffer; status: number; gate: RecordingGate; upstreamPaths: string[] }> {
  const upstream = rawUpstream(answers);
  let body = Buffer.alloc(0);
  let status = 0;
  await withRelayOver(
    upstream,
    { api, ...KEYS[api], spend: gate, onUnpricedModel },
    async (socket) => {
      const answer = await postTo(socket, path);
      body = Buffer.from(answer.body, "latin1");
      status = answer.status;
    },
  );
  return { body, status, gate, upstreamPaths: upstream.paths };
}

describe("the relay meters each API's streamed answers as they pass", () => {
  test("an Anthropic stream's input, cache and output tokens are recorded and priced", async () => {
    const stream = anthropicStream("claude-sonnet-4-5-20250929", 400);
    const { body, gate } = await throughRelay("anthropic", [
      { contentType: "text/event-stream", chunks: [stream] },
    ]);
    assert.ok(body.equals(stream));
    const total = gate.total();
    assert.equal(total.model, "claude-sonnet-4-5-20250929");
    assert.deepEqual(
      [total.inputTokens, total.outputTokens, total.cacheReadTokens, total.cacheWriteTokens],
      [1000, 400, 20_000, 3000],
    );
    near(total.costUSD, (1000 * 3 + 400 * 15 + 20_000 * 0.3 + 3000 * 3.75) / 1e6, "cost");
    // message_start is recorded before message_delta arrives: two increases.
    assert.equal(gate.records.length, 2);
  });

  test("an OpenAI Responses stream's cached and reasoning tokens are recorded and priced", async () => {
    const stream = openaiStream("gpt-5-codex");
    const { body, gate } = await throughRelay("openai", [
      { contentType: "text/event-stream", chunks: [stream] },
    ]);
    assert.ok(body.equals(stream));
    const total = gate.total();
    assert.deepEqual(
      [total.inputTokens, total.cacheReadTokens, total.outputTokens, total.reasoningTokens],
      [2000, 8000, 500, 300],
    );
    near(total.costUSD, (2000 * 1.25 + 8000 * 0.125 + 500 * 10) / 1e6, "cost");
  });

  test("a Gemini stream's usageMetadata is recorded, thoughts priced as output", async () => {
    const stream = events([
      [undefined, geminiChunk("gemini-2.5-pro")],
      [undefined, geminiChunk("gemini-2.5-pro", GEMINI_USAGE)],
    ]);
    const { body, gate } = await throughRelay("gemini", [
      { contentType: "text/event-stream", chunks: [stream] },
    ]);
    assert.ok(body.equals(stream));
    const total = gate.total();
    assert.deepEqual(
      [total.inputTokens, total.cacheReadTokens, total.outputTokens, total.reasoningTokens],
      [6000, 4000, 200, 100],
    );
    near(total.costUSD, (6000 * 1.25 + 4000 * 0.125 + 300 * 10) / 1e6, "cost");
  });

  test("the scripted APIs the e2e tests drive are metered at their scripted usage", async () => {
    const dir = await tempDir();
    const anthropic = await startScriptedAnthropic([
      { kind: "text", text: "done", usage: { inputTokens: 1234, outputTokens: 56 } },
    ]);
    const openai = await startScriptedOpenAI([
      { kind: "text", text: "done", usage: { inputTokens: 777, outputTokens: 88 } },
    ]);
    const gemini = await startScriptedGemini([
      { kind: "text", text: "done", usage: { inputTokens: 999, outputTokens: 11 } },
    ]);
    const cases = [
      {
        api: "anthropic" as const,
        url: anthropic.url,
        body: { model: "claude-haiku-4-5", stream: true, tools: [], messages: [] },
        want: [1234, 56],
      },
      { api: "openai" as const, url: openai.url, body: { model: "gpt-5-codex" }, want: [777, 88] },
      { api: "gemini" as const, url: gemini.url, body: {}, want: [999, 11] },
    ];
    try {
      for (const c of cases) {
        const gate = recordingGate();
        const socketPath = join(dir.path, `${c.api}.sock`);
        const relay = await startRelay({
          api: c.api,
          ...KEYS[c.api],
          socketPath,
          upstream: c.url,
          spend: gate,
        });
        try {
          const answer = await postTo(socketPath, MODEL_PATH[c.api], JSON.stringify(c.body));
          assert.equal(answer.status, 200, c.api);
          const total = gate.total();
          assert.deepEqual([total.inputTokens, total.outputTokens], c.want, c.api);
          assert.ok(total.costUSD > 0, c.api);
        } finally {
          await relay.close();
        }
      }
    } finally {
      await Promise.all([anthropic.close(), openai.close(), gemini.close()]);
      await dir.remove();
    }
  });
});

describe("the relay meters answers that are not streamed", () => {
  const cases: { api: ApiKind; path: string; value: unknown; input: number; output: number }[] = [
    {
      api: "anthropic",
      path: "/v1/messages",
      value: {
        type: "message",
        model: "claude-haiku-4-5",
        content: [{ type: "text", text: "hi" }],
        usage: { input_tokens: 50, output_tokens: 7, cache_read_input_tokens: 0 },
      },
      input: 50,
      output: 7,
    },
    {
      api: "openai",
      path: "/responses",
      value: {
        object: "response",
        model: "gpt-5",
        usage: { input_tokens: 40, output_tokens: 9, input_tokens_details: { cached_tokens: 0 } },
      },
      input: 40,
      output: 9,
    },
    {
      api: "gemini",
      path: "/v1beta/models/gemini-2.5-flash:generateContent",
      value: geminiChunk("gemini-2.5-flash", { promptTokenCount: 30, candidatesTokenCount: 5 }),
      input: 30,
      output: 5,
    },
    {
      api: "gemini",
      path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
      value: [
        geminiChunk("gemini-2.5-flash", { promptTokenCount: 30, candidatesTokenCount: 2 }),
        geminiChunk("gemini-2.5-flash", { promptTokenCount: 30, candidatesTokenCount: 5 }),
      ],
      input: 30,
      output: 5,
    },
  ];
  for (const c of cases) {
    test(`a plain JSON answer to ${c.api} ${c.path} is metered once it ends`, async () => {
      const bytes = Buffer.from(JSON.stringify(c.value, null, 1));
      const { body, gate } = await throughRelay(
        c.api,
        [{ contentType: "application/json; charset=UTF-8", chunks: splitAt(bytes, [7, 40, 41]) }],
        c.path,
      );
      assert.ok(body.equals(bytes));
      const total = gate.total();
      assert.deepEqual([total.inputTokens, total.outputTokens], [c.input, c.output]);
      assert.ok(total.costUSD > 0);
    });
  }
});

describe("a spending gate that refuses stops the request at the relay", () => {
  for (const api of ["anthropic", "openai", "gemini"] as const) {
    test(`a refused ${api} request gets the API's own error, and nothing goes upstream`, async () => {
      const { status, body, upstreamPaths, gate } = await throughRelay(
        api,
        [{ contentType: "text/event-stream", chunks: [Buffer.from("data: {}\n\n")] }],
        MODEL_PATH[api],
        recordingGate(0),
      );
      const refusal = RELAY_APIS[api].spendRefusal;
      assert.equal(status, refusal.status);
      assert.deepEqual(
        JSON.parse(body.toString("utf8")),
        relayErrorBody(
          api,
          refusal.status,
          refusal.type,
          "the task's spending cap of $0 is reached ($0.0000 spent)",
          refusal.googleStatus,
        ),
      );
      assert.deepEqual(upstreamPaths, []);
      assert.equal(gate.checks, 1);
    });
  }

  test("the statuses are the ones each agent stops at without retrying", () => {
    assert.deepEqual(
      Object.fromEntries(
        (["anthropic", "openai", "gemini"] as const).map((api) => [
          api,
          RELAY_APIS[api].spendRefusal,
        ]),
      ),
      {
        anthropic: { status: 402, type: "billing_error" },
        openai: { status: 400, type: "invalid_request_error" },
        gemini: { status: 400, type: "invalid_request_error", googleStatus: "FAILED_PRECONDITION" },
      },
    );
  });

  test("counting tokens is free: the gate is not asked and the request goes upstream", async () => {
    const { status, gate, upstreamPaths } = await throughRelay(
      "anthropic",
      [{ contentType: "application/json", chunks: [Buffer.from('{"input_tokens":3}')] }],
      "/v1/messages/count_tokens",
      recordingGate(0),
    );
    assert.equal(status, 200);
    assert.equal(gate.checks, 0);
    assert.deepEqual(upstreamPaths, ["/v1/messages/count_tokens"]);
  });

  test("a gate that throws refuses, so a broken gate never lifts a cap", async () => {
    const gate = recordingGate();
    const { status, upstreamPaths } = await throughRelay(
      "openai",
      [{ contentType: "text/event-stream", chunks: [openaiStream("gpt-5")] }],
      "/responses",
      Object.assign(gate, {
        check: () => {
          throw new Error("broken");
        },
      }),
    );
    assert.equal(status, 400);
    assert.deepEqual(upstreamPaths, []);
  });

  test("a gate whose record throws leaves the agent's stream whole", async () => {
    const stream = anthropicStream("claude-opus-4-1", 9);
    const gate = Object.assign(recordingGate(), {
      record: () => {
        throw new Error("broken");
      },
    });
    const { body, status } = await throughRelay(
      "anthropic",
      [{ contentType: "text/event-stream", chunks: [stream] }],
      MODEL_PATH.anthropic,
      gate,
    );
    assert.equal(status, 200);
    assert.ok(body.equals(stream));
  });
});

describe("a model the price table lacks", () => {
  test("is priced at the API's highest prices, and named once to onUnpricedModel", async () => {
    const warned: string[] = [];
    const stream = anthropicStream("claude-future-9", 1000);
    const gate = recordingGate();
    const upstream = rawUpstream([{ contentType: "text/event-stream", chunks: [stream] }]);
    await withRelayOver(
      upstream,
      { api: "anthropic", ...KEYS.anthropic, spend: gate, onUnpricedModel: (m) => warned.push(m) },
      async (socket) => {
        await postTo(socket, MODEL_PATH.anthropic);
        await postTo(socket, MODEL_PATH.anthropic);
      },
    );
    assert.deepEqual(warned, ["claude-future-9"]);
    // Opus 4's prices, the table's highest for Anthropic, for both requests.
    near(
      gate.total().costUSD,
      (2 * (1000 * 15 + 1000 * 75 + 20_000 * 1.5 + 3000 * 18.75)) / 1e6,
      "cost",
    );
  });
});

/** The sum of one field over the records. */
function sum(records: readonly RequestUsage[], key: Exclude<keyof RequestUsage, "model">): number {
  return records.reduce((total, r) => total + r[key], 0);
}

describe("the overshoot past a cap", () => {
  test("requests one after another pass the cap by at most the one request that crossed it", async () => {
    const stream = anthropicStream("claude-sonnet-4-5", 400);
    const perRequest = (1000 * 3 + 400 * 15 + 20_000 * 0.3 + 3000 * 3.75) / 1e6;
    const cap = 0.1;
    const gate = recordingGate(cap);
    const upstream = rawUpstream([{ contentType: "text/event-stream", chunks: [stream] }]);
    const statuses: number[] = [];
    await withRelayOver(
      upstream,
      { api: "anthropic", ...KEYS.anthropic, spend: gate },
      async (socket) => {
        for (let i = 0; i < 10; i += 1)
          statuses.push((await postTo(socket, MODEL_PATH.anthropic)).status);
      },
    );
    const spent = sum(gate.records, "costUSD");
    assert.ok(spent >= cap && spent < cap + perRequest, `spent ${spent}`);
    assert.equal(statuses.filter((s) => s === 200).length, Math.ceil(cap / perRequest));
    assert.ok(statuses.slice(Math.ceil(cap / perRequest)).every((s) => s === 402));
  });

  test("requests sent together pass the cap by at most the requests in flight", async () => {
    const stream = openaiStream("gpt-5");
    const perRequest = (2000 * 1.25 + 8000 * 0.125 + 500 * 10) / 1e6;
    const cap = perRequest / 2;
    const gate = recordingGate(cap);
    const inFlight = 4;
    const upstream = rawUpstream(
      [{ contentType: "text/event-stream", chunks: [stream] }],
      inFlight,
    );
    await withRelayOver(
      upstream,
      { api: "openai", ...KEYS.openai, spend: gate },
      async (socket) => {
        await Promise.all(Array.from({ length: inFlight }, () => postTo(socket, "/responses")));
        assert.equal((await postTo(socket, "/responses")).status, 400);
      },
    );
    const spent = sum(gate.records, "costUSD");
    near(spent, inFlight * perRequest, "all four in flight were let through and counted");
  });
});
