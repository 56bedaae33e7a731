// Reading when a usage limit resets from a 429 answer, as each API says it: what the upstream
// sends is not warden's, so nonsense, absurd times and oversized values name no limit.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { usageLimitInBody, usageLimitOf } from "../../src/egress/index.js";
import { durationMs } from "../../src/egress/usageLimit.js";

const NOW = Date.parse("2026-12-02T04:00:00Z");

test("only a 429 is a usage limit, and one without a time names none", () => {
  assert.equal(usageLimitOf("anthropic", 500, { "retry-after": "30" }, NOW), undefined);
  assert.equal(usageLimitOf("anthropic", 429, {}, NOW), undefined);
  assert.equal(
    usageLimitOf("openai", 429, { "x-ratelimit-reset-requests": "soon" }, NOW),
    undefined,
  );
});

test("retry-after in seconds or as an HTTP date comes first, for every API", () => {
  assert.deepEqual(usageLimitOf("openai", 429, { "retry-after": "90" }, NOW), {
    api: "openai",
    resetAt: NOW + 90_000,
    source: "retry-after",
  });
  const date = new Date(NOW + 3_600_000).toUTCString();
  assert.equal(usageLimitOf("gemini", 429, { "retry-after": date }, NOW)?.resetAt, NOW + 3_600_000);
});

test("Anthropic: the subscription's unified reset in epoch seconds, and the per-kind resets in RFC 3339, the kind that ran out deciding", () => {
  const unified = usageLimitOf(
    "anthropic",
    429,
    {
      "anthropic-ratelimit-unified-status": "rejected",
      "anthropic-ratelimit-unified-reset": String((NOW + 5 * 3_600_000) / 1000),
    },
    NOW,
  );
  assert.equal(unified?.resetAt, NOW + 5 * 3_600_000);
  assert.equal(unified.source, "anthropic-ratelimit-unified-reset");
  const perKind = usageLimitOf(
    "anthropic",
    429,
    {
      "anthropic-ratelimit-requests-remaining": "40",
      "anthropic-ratelimit-requests-reset": "2026-12-02T04:00:10Z",
      "anthropic-ratelimit-tokens-remaining": "0",
      "anthropic-ratelimit-tokens-reset": "2026-12-02T04:01:00Z",
    },
    NOW,
  );
  assert.equal(perKind?.resetAt, NOW + 60_000);
  assert.equal(perKind.source, "anthropic-ratelimit-tokens-reset");
});

test("OpenAI: Go-style durations in x-ratelimit-reset-*", () => {
  assert.equal(durationMs("6m0s"), 360_000);
  assert.equal(durationMs("1h2m3.5s"), 3_723_500);
  assert.equal(durationMs("20ms"), 20);
  assert.equal(durationMs("1500\u00b5s"), 1.5, "the micro sign, as Go writes it");
  assert.equal(durationMs("1500us"), 1.5);
  assert.equal(durationMs("1d"), undefined);
  const limit = usageLimitOf(
    "openai",
    429,
    {
      "x-ratelimit-remaining-tokens": "0",
      "x-ratelimit-reset-tokens": "6m0s",
      "x-ratelimit-reset-requests": "1s",
    },
    NOW,
  );
  assert.equal(limit?.resetAt, NOW + 360_000);
});

test("Gemini: RetryInfo's retryDelay in a RESOURCE_EXHAUSTED body, as an object or an array", () => {
  const error = {
    error: {
      code: 429,
      status: "RESOURCE_EXHAUSTED",
      details: [
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure" },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "42s" },
      ],
    },
  };
  assert.equal(usageLimitInBody("gemini", JSON.stringify(error), NOW)?.resetAt, NOW + 42_000);
  assert.equal(usageLimitInBody("gemini", JSON.stringify([error]), NOW)?.source, "retryDelay");
  assert.equal(usageLimitInBody("gemini", "not json", NOW), undefined);
  assert.equal(usageLimitInBody("gemini", '{"error":{"details":"x"}}', NOW), undefined);
});

test("hostile values name no limit: past a year away, oversized, not finite; a reset in the past is now", () => {
  assert.equal(usageLimitOf("anthropic", 429, { "retry-after": "99999999999" }, NOW), undefined);
  assert.equal(usageLimitOf("anthropic", 429, { "retry-after": "9".repeat(400) }, NOW), undefined);
  assert.equal(
    usageLimitOf("anthropic", 429, { "anthropic-ratelimit-unified-reset": "NaN" }, NOW),
    undefined,
  );
  const body = JSON.stringify({ error: { details: [{ retryDelay: `${"9".repeat(80)}s` }] } });
  assert.equal(usageLimitInBody("gemini", body, NOW), undefined);
  const past = usageLimitOf(
    "anthropic",
    429,
    { "anthropic-ratelimit-requests-reset": "2020-01-01T00:00:00Z" },
    NOW,
  );
  assert.equal(past?.resetAt, NOW);
});
