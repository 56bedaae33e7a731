import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import fc from "fast-check";
import { EGRESS_LIMITS } from "../../src/egress/limits.js";
import { findPrice, PRICE_TABLE, readPriceTable } from "../../src/egress/modelPrices.js";
import type { ApiKind } from "../../src/egress/relayApis.js";
import { priceFinder, UsageMeter } from "../../src/egress/usageMeter.js";
import { tokenCount } from "../../src/egress/usageReading.js";
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
  type RecordingGate,
} from "./meteredUpstream.js";
import { withRelayOver } from "./relayFixture.js";

/** Feeds `chunks` to a fresh meter of `api`; returns the gate it recorded into. */
function meter(
  api: ApiKind,
  chunks: readonly Buffer[],
  contentType = "text/event-stream",
): RecordingGate {
  const gate = recordingGate();
  const usageMeter = new UsageMeter(
    { api, gate, price: priceFinder(api, () => undefined) },
    contentType,
  );
  for (const chunk of chunks) usageMeter.write(chunk);
  usageMeter.end();
  return gate;
}

const STREAMS: readonly [ApiKind, Buffer][] = [
  ["anthropic", anthropicStream("claude-sonnet-4-5", 321)],
  ["openai", openaiStream("gpt-5-codex")],
  [
    "gemini",
    events([
      [undefined, geminiChunk("gemini-2.5-pro", { ...GEMINI_USAGE, candidatesTokenCount: 50 })],
      [undefined, geminiChunk("gemini-2.5-pro", GEMINI_USAGE)],
    ]),
  ],
];

describe("usage split across chunks", () => {
  for (const [api, stream] of STREAMS) {
    test(`a ${api} stream cut at any one byte is metered as the whole`, () => {
      const whole = meter(api, [stream]).total();
      assert.ok(whole.costUSD > 0);
      for (let cut = 1; cut < stream.length; cut += 1) {
        assert.deepEqual(meter(api, splitAt(stream, [cut])).total(), whole, `cut at ${cut}`);
      }
    });

    test(`a ${api} stream cut into many pieces is metered as the whole`, () => {
      const whole = meter(api, [stream]).total();
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 40 }),
          (cuts) => {
            assert.deepEqual(meter(api, splitAt(stream, cuts)).total(), whole);
          },
        ),
      );
    });

    test(`a ${api} stream in one-byte chunks is metered as the whole`, () => {
      const bytes = Array.from({ length: stream.length }, (_, i) => stream.subarray(i, i + 1));
      assert.deepEqual(meter(api, bytes).total(), meter(api, [stream]).total());
    });
  }

  test("an event stream with CRLF line ends is metered as one with LF", () => {
    const stream = anthropicStream("claude-sonnet-4-5", 321);
    const crlf = Buffer.from(stream.toString("utf8").replaceAll("\n", "\r\n"));
    assert.deepEqual(meter("anthropic", [crlf]).total(), meter("anthropic", [stream]).total());
  });
});

/** Count texts a hostile upstream may put where a number belongs, written into the JSON as-is. */
const hostileCount = fc.oneof(
  fc.integer({ min: 0, max: 5_000_000 }).map(String),
  fc.integer({ min: -5_000_000, max: -1 }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom("1e400", "-1e400", "1e300", "9007199254740993", "-0", "0.5", "null", "true"),
  fc.string({ maxLength: 6 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('"123"', "[]", "{}", '"NaN"'),
);

/** What the meter must make of a count's text: the bounded number, or undefined when ignored. */
function takenAs(text: string): number | undefined {
  const value = JSON.parse(text) as unknown;
  if (typeof value !== "number" || !(value >= 0)) return undefined;
  return Math.min(Math.ceil(value), EGRESS_LIMITS.meterTokensPerCount);
}

describe("Anthropic's cache writes", () => {
  test("an hour's cache write is priced at the 1-hour price, the rest at the 5-minute one", () => {
    const stream = events([
      [
        "message_start",
        {
          type: "message_start",
          message: {
            model: "claude-sonnet-4-5",
            usage: {
              input_tokens: 0,
              output_tokens: 0,
              cache_creation_input_tokens: 3000,
              cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 2000 },
            },
          },
        },
      ],
    ]);
    const total = meter("anthropic", [stream]).total();
    assert.equal(total.cacheWriteTokens, 3000);
    assert.ok(Math.abs(total.costUSD - (1000 * 3.75 + 2000 * 6) / 1e6) < 1e-12, `${total.costUSD}`);
  });
});

describe("hostile usage numbers", () => {
  test("recorded usage never goes down, never overflows, and is the highest valid count", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(hostileCount, hostileCount, hostileCount, hostileCount), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (deltas, cuts) => {
          const list: [string, unknown][] = [];
          const texts = deltas.map(
            ([input, output, read, write]) =>
              `{"type":"message_delta","usage":{"input_tokens":${input},"output_tokens":${output},` +
              `"cache_read_input_tokens":${read},"cache_creation_input_tokens":${write}}}`,
          );
          const stream = Buffer.concat([
            events(list),
            ...texts.map((t) => Buffer.from(`event: message_delta\ndata: ${t}\n\n`)),
          ]);
          const gate = meter(
            "anthropic",
            splitAt(
              stream,
              cuts.map((c) => c % stream.length),
            ),
          );
          let cost = 0;
          for (const record of gate.records) {
            for (const value of Object.values(record)) {
              if (typeof value === "number") assert.ok(Number.isFinite(value) && value >= 0);
            }
            cost += record.costUSD;
          }
          const total = gate.total();
          const highest = (i: number): number =>
            Math.max(0, ...deltas.map((d) => takenAs(d[i] ?? "null") ?? 0));
          assert.deepEqual(
            [total.inputTokens, total.outputTokens, total.cacheReadTokens, total.cacheWriteTokens],
            [highest(0), highest(1), highest(2), highest(3)],
          );
          assert.ok(total.inputTokens <= EGRESS_LIMITS.meterTokensPerCount);
          assert.ok(Number.isFinite(cost) && cost >= 0);
        },
      ),
    );
  });

  test("a count is taken only as a number of zero or more, rounded up and bounded", () => {
    const bound = EGRESS_LIMITS.meterTokensPerCount;
    const cases: [unknown, number | undefined][] = [
      [12, 12],
      [1.2, 2],
      [0, 0],
      [-1, undefined],
      [-0.5, undefined],
      [Number.NaN, undefined],
      ["12", undefined],
      [null, undefined],
      [{}, undefined],
      [Number.POSITIVE_INFINITY, bound],
      [1e300, bound],
    ];
    for (const [value, taken] of cases) assert.equal(tokenCount(value), taken, String(value));
  });

  test("a negative cached count does not swell the uncached input", () => {
    const stream = events([
      [
        undefined,
        {
          type: "response.completed",
          response: {
            model: "gpt-5",
            usage: { input_tokens: 100, input_tokens_details: { cached_tokens: -1_000_000 } },
          },
        },
      ],
    ]);
    const total = meter("openai", [stream]).total();
    assert.deepEqual([total.inputTokens, total.cacheReadTokens], [100, 0]);
  });

  test("a usage that goes down in a later event leaves the recorded usage as it was", () => {
    const stream = events([
      [
        "message_start",
        {
          type: "message_start",
          message: { model: "claude-haiku-4-5", usage: { input_tokens: 900, output_tokens: 1 } },
        },
      ],
      ["message_delta", { type: "message_delta", usage: { output_tokens: 500 } }],
      ["message_delta", { type: "message_delta", usage: { input_tokens: 3, output_tokens: 10 } }],
      [
        "message_delta",
        { type: "message_delta", usage: { input_tokens: -900, output_tokens: -500 } },
      ],
    ]);
    const gate = meter("anthropic", [stream]);
    const total = gate.total();
    assert.deepEqual([total.inputTokens, total.outputTokens], [900, 500]);
    assert.equal(gate.records.length, 2);
    assert.ok(gate.records.every((r) => r.costUSD >= 0));
  });

  test("a count held at the bound still prices finitely and reaches any cap", () => {
    // Written out: JSON.stringify would turn 1e400 into null.
    const stream = Buffer.from(
      'data: {"usageMetadata":{"promptTokenCount":1e400,"candidatesTokenCount":1e308}}\n\n',
    );
    const total = meter("gemini", [stream]).total();
    assert.equal(total.inputTokens, EGRESS_LIMITS.meterTokensPerCount);
    assert.equal(total.outputTokens, EGRESS_LIMITS.meterTokensPerCount);
    assert.ok(Number.isFinite(total.costUSD) && total.costUSD > 1_000_000);
  });

  test("events that are not JSON, or too long to read, pass without breaking the meter", () => {
    const junk = Buffer.concat([
      Buffer.from("data: {usage: broken\n\n"),
      Buffer.from(`data: "${"usage".repeat(EGRESS_LIMITS.meterEventBytes / 5)}"\n\n`),
      Buffer.from("\xff\xfe\x00data: \n\n", "latin1"),
      openaiStream("gpt-5"),
    ]);
    const total = meter("openai", splitAt(junk, [3, 100, 5000, 1_000_000])).total();
    assert.equal(total.outputTokens, 500);
  });

  test("a JSON answer over the copy bound is not read", () => {
    const big = Buffer.from(
      JSON.stringify({
        type: "message",
        usage: { input_tokens: 5 },
        pad: "x".repeat(EGRESS_LIMITS.meterJsonBytes),
      }),
    );
    assert.equal(meter("anthropic", [big], "application/json").records.length, 0);
  });
});

describe("the stream the agent receives when metering is on", () => {
  test("is byte for byte what the upstream sent, however it was cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...STREAMS),
        fc.array(fc.nat(), { maxLength: 12 }),
        async ([api, stream], cuts) => {
          const chunks = splitAt(
            stream,
            cuts.map((c) => c % stream.length),
          );
          const upstream = rawUpstream([{ contentType: "text/event-stream", chunks }]);
          const gate = recordingGate();
          const keys = {
            anthropic: ["sk-ant-real-prop-0123456789", "sk-ant-warden-placeholder-p"],
            openai: ["sk-real-prop-0123456789", "sk-warden-placeholder-p"],
            gemini: ["AIza-real-prop-0123456789", "warden-placeholder-p"],
          }[api];
          const path = {
            anthropic: "/v1/messages",
            openai: "/responses",
            gemini: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
          }[api];
          let body = "";
          await withRelayOver(
            upstream,
            { api, apiKey: keys[0] ?? "", placeholderKey: keys[1] ?? "", spend: gate },
            async (socket) => {
              body = (await postTo(socket, path)).body;
            },
          );
          assert.ok(Buffer.from(body, "latin1").equals(stream));
          assert.deepEqual(gate.total(), meter(api, [stream]).total());
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe("the price table", () => {
  test("names the day it was checked and prices every API", () => {
    assert.match(PRICE_TABLE.checked, /^\d{4}-\d{2}-\d{2}$/);
    for (const api of ["anthropic", "openai", "gemini"] as const) {
      assert.ok(Object.keys(PRICE_TABLE.models[api]).length > 0);
    }
  });

  test("a dated snapshot takes its model's price; another model of the family does not", () => {
    assert.deepEqual(
      findPrice("anthropic", "claude-sonnet-4-5-20250929"),
      findPrice("anthropic", "claude-sonnet-4-5"),
    );
    assert.equal(findPrice("anthropic", "claude-sonnet-4-5-20250929").known, true);
    assert.equal(findPrice("gemini", "gemini-2.5-pro-preview-06-05").known, true);
    assert.equal(findPrice("openai", "gpt-5-pro").known, false);
    assert.equal(findPrice("openai", "gpt-5-mini").price.input, 0.25);
    assert.equal(findPrice("anthropic", "constructor").known, false);
  });

  test("an unknown model costs at least as much as any known model of its API", () => {
    for (const api of ["anthropic", "openai", "gemini"] as const) {
      const unknown = findPrice(api, "no-such-model").price;
      for (const row of Object.values(PRICE_TABLE.models[api])) {
        for (const key of ["input", "output", "cacheRead", "cacheWrite", "cacheWrite1h"] as const) {
          assert.ok(unknown[key] >= row[key] && unknown[key] >= (row.long?.[key] ?? 0));
        }
      }
    }
  });

  test("a table with a negative price, no date or a cheaper long tier is refused", () => {
    const row = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 };
    const table = (models: unknown, checked: unknown = "2026-01-01") => ({
      checked,
      models: { anthropic: models, openai: { m: row }, gemini: { m: row } },
    });
    assert.doesNotThrow(() => readPriceTable(table({ m: row })));
    assert.throws(() => readPriceTable(table({ m: { ...row, input: -1 } })), /input/);
    assert.throws(() => readPriceTable(table({ m: { ...row, output: "2" } })), /output/);
    assert.throws(() => readPriceTable(table({ m: row }, "yesterday")), /checked/);
    assert.throws(() => readPriceTable(table({})), /no models/);
    assert.throws(() => readPriceTable(table({ m: { ...row, cacheWrite1h: -1 } })), /cacheWrite1h/);
    assert.throws(
      () => readPriceTable(table({ m: { ...row, cacheWrite: 2, cacheWrite1h: 1 } })),
      /below its cacheWrite/,
    );
    assert.throws(
      () =>
        readPriceTable(
          table({ m: { ...row, long: { ...row, input: 0.5, aboveInputTokens: 10 } } }),
        ),
      /below/,
    );
  });
});
