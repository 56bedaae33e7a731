// When an API answers 429 (rate or usage limit) with a time at which the limit resets, the relay
// reports that time so the host can suspend the task until then instead of letting the agent
// retry for hours. Pure: each API's ways of saying when, read defensively (the values come from
// the upstream, which warden does not control):
// - every API: `retry-after` (seconds, or an HTTP date);
// - Anthropic: `anthropic-ratelimit-<kind>-reset` (an RFC 3339 time; the subscription's
//   `unified` kind gives seconds since the epoch), with `-remaining` saying which kind ran out;
// - OpenAI: `x-ratelimit-reset-<kind>` (a duration such as `6m0s` or `20ms`), with
//   `x-ratelimit-remaining-<kind>`;
// - Gemini: a `RESOURCE_EXHAUSTED` body whose RetryInfo detail has `retryDelay` (`"30s"`).
import type { IncomingHttpHeaders } from "node:http";
import { EGRESS_LIMITS } from "./limits.js";
import type { ApiKind } from "./relayApis.js";

/** The status with which every API says a limit was reached. */
export const LIMIT_STATUS = 429;

/** A usage limit the upstream named, with the time it resets. */
export interface UsageLimit {
  readonly api: ApiKind;
  /** ms since the epoch. */
  readonly resetAt: number;
  /** Where the time came from: a header's name, or `retryDelay` of the body. */
  readonly source: string;
}

/** Times before this (September 2001) in a reset header are seconds from now, not epoch seconds. */
const EPOCH_SECONDS_FROM = 1e9;
/**
 * A Go-style duration as OpenAI and Gemini write it: `1h2m3.5s`, `20ms`, `30s`. The micro sign
 * is written as an escape, so the bundles stay ASCII and load without UTF-8 decoding
 * (src/lang/cachedBundle.ts).
 */
const DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|\u00b5s|ns))+$/;
const DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|\u00b5s|ns)/g;
const UNIT_MS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  "\u00b5s": 0.001,
  ns: 0.000001,
};

function one(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  return trimmed === "" || trimmed.length > EGRESS_LIMITS.limitValueChars ? undefined : trimmed;
}

/** A Go-style duration in ms, or undefined. */
export function durationMs(text: string): number | undefined {
  if (!DURATION.test(text)) return undefined;
  let total = 0;
  for (const part of text.matchAll(DURATION_PART)) {
    total += Number(part[1]) * (UNIT_MS[part[2] ?? ""] ?? 0);
  }
  return Number.isFinite(total) ? total : undefined;
}

/** `retry-after`: seconds from now, or an HTTP date. */
function retryAfter(text: string, now: number): number | undefined {
  if (/^\d+(?:\.\d+)?$/.test(text)) return now + Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isFinite(at) ? at : undefined;
}

/** An Anthropic reset: an RFC 3339 time, or a number of seconds (since the epoch when large). */
function anthropicReset(text: string, now: number): number | undefined {
  if (/^\d+(?:\.\d+)?$/.test(text)) {
    const seconds = Number(text);
    return seconds >= EPOCH_SECONDS_FROM ? seconds * 1000 : now + seconds * 1000;
  }
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? at : undefined;
}

/** One limit's reset as a header says it, with whether that limit has run out. */
interface Reset {
  readonly at: number;
  readonly source: string;
  readonly exhausted: boolean;
}

/** The per-kind reset headers of an API, each read into a time. */
function kindResets(api: ApiKind, headers: IncomingHttpHeaders, now: number): Reset[] {
  const resets: Reset[] = [];
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    let kind: string | undefined;
    let at: number | undefined;
    let remaining: string | undefined;
    const value = one(headers[name]);
    if (value === undefined) continue;
    if (api === "anthropic") {
      kind = /^anthropic-ratelimit-([a-z0-9-]+)-reset$/.exec(lower)?.[1];
      if (kind === undefined) continue;
      at = anthropicReset(value, now);
      remaining = one(headers[`anthropic-ratelimit-${kind}-remaining`]);
      // The subscription's unified limit says it ran out with a status, not a count.
      if (one(headers[`anthropic-ratelimit-${kind}-status`]) === "rejected") remaining = "0";
    } else if (api === "openai") {
      kind = /^x-ratelimit-reset-([a-z0-9-]+)$/.exec(lower)?.[1];
      if (kind === undefined) continue;
      const ms = durationMs(value);
      at = ms === undefined ? undefined : now + ms;
      remaining = one(headers[`x-ratelimit-remaining-${kind}`]);
    }
    if (at === undefined) continue;
    resets.push({ at, source: lower, exhausted: remaining === "0" });
  }
  return resets;
}

/** The latest of the resets that ran out; else the earliest of all (one of them is the cause). */
function chosenReset(resets: readonly Reset[]): Reset | undefined {
  const exhausted = resets.filter((r) => r.exhausted);
  if (exhausted.length > 0) return exhausted.reduce((a, b) => (b.at > a.at ? b : a));
  return resets.reduce<Reset | undefined>(
    (a, b) => (a === undefined || b.at < a.at ? b : a),
    undefined,
  );
}

function sane(limit: UsageLimit, now: number): UsageLimit | undefined {
  if (!Number.isFinite(limit.resetAt)) return undefined;
  if (limit.resetAt - now > EGRESS_LIMITS.limitFurthestResetMs) return undefined;
  return { ...limit, resetAt: Math.max(now, Math.round(limit.resetAt)) };
}

/**
 * The usage limit an answer's status and headers name, or undefined when it is not a limit or
 * names no time (the agent's own retries are then left to it).
 */
export function usageLimitOf(
  api: ApiKind,
  status: number,
  headers: IncomingHttpHeaders,
  now: number,
): UsageLimit | undefined {
  if (status !== LIMIT_STATUS) return undefined;
  const after = one(headers["retry-after"]);
  const afterAt = after === undefined ? undefined : retryAfter(after, now);
  if (afterAt !== undefined) return sane({ api, resetAt: afterAt, source: "retry-after" }, now);
  const reset = chosenReset(kindResets(api, headers, now));
  return reset === undefined
    ? undefined
    : sane({ api, resetAt: reset.at, source: reset.source }, now);
}

/**
 * The usage limit a 429's body names: Gemini's (and Google's) RetryInfo `retryDelay`. Reads a
 * JSON object or an array of them; anything else names none.
 */
export function usageLimitInBody(api: ApiKind, body: string, now: number): UsageLimit | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  const answers = Array.isArray(value) ? value : [value];
  for (const answer of answers) {
    const details = field(field(answer, "error"), "details");
    if (!Array.isArray(details)) continue;
    for (const detail of details) {
      const delay = field(detail, "retryDelay");
      if (typeof delay !== "string" || delay.length > EGRESS_LIMITS.limitValueChars) continue;
      const ms = durationMs(delay.trim());
      if (ms !== undefined) return sane({ api, resetAt: now + ms, source: "retryDelay" }, now);
    }
  }
  return undefined;
}

function field(value: unknown, name: string): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return Object.prototype.hasOwnProperty.call(value, name)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}
