// The usage one parsed event of a model answer reports, in each API's words: Anthropic's
// message_start, message_delta and whole message; OpenAI Responses' response.* events and whole
// response; Gemini's usageMetadata. The upstream is hostile like the sandbox: a count that is
// not a number of zero or more is ignored, and a huge one is held at a bound, so the sums of
// counts stay exact integers. Pure; nothing here throws.
import { EGRESS_LIMITS } from "./limits.js";
import type { ApiKind } from "./relayApis.js";

/**
 * The counts one event reports, each as the API's running total for the request so far (every
 * API reports totals, not increments). A count the event does not report is undefined.
 */
export interface ObservedUsage {
  readonly model?: string;
  /** Input not read from or written to a cache. */
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  /** The part of the cache writes written for an hour (Anthropic's `cache_creation`). */
  readonly cacheWrite1hTokens?: number;
  readonly reasoningTokens?: number;
  /** Tokens billed as output beside `outputTokens` (Gemini's thoughts). */
  readonly extraOutputTokens?: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A token count as the relay takes it: a number of zero or more, rounded up, held at
 * EGRESS_LIMITS.meterTokensPerCount (Infinity included). Anything else (a string, a negative,
 * NaN, null) is undefined: the count is then taken as not reported.
 */
export function tokenCount(value: unknown): number | undefined {
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) return undefined;
  return Math.min(Math.ceil(value), EGRESS_LIMITS.meterTokensPerCount);
}

/** A model name to price and show: the API's characters only, without Google's `models/`. */
export function modelName(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const name = value.startsWith("models/") ? value.slice("models/".length) : value;
  if (name === "" || name.length > EGRESS_LIMITS.meterModelNameChars) return undefined;
  return /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/.test(name) ? name : undefined;
}

/** `total` less `part`, when both are known; `total` alone when the part is not reported. */
function less(total: number | undefined, part: number | undefined): number | undefined {
  if (total === undefined) return undefined;
  return Math.max(0, total - (part ?? 0));
}

function plus(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a + b, EGRESS_LIMITS.meterTokensPerCount);
}

function anthropicUsage(event: Record<string, unknown>): ObservedUsage | undefined {
  // message_start carries the message; a non-streaming answer is the message itself.
  const message = event.type === "message_start" ? event.message : event;
  if (!isRecord(message) || !isRecord(message.usage)) return undefined;
  const usage = message.usage;
  return {
    model: modelName(message.model),
    inputTokens: tokenCount(usage.input_tokens),
    outputTokens: tokenCount(usage.output_tokens),
    cacheReadTokens: tokenCount(usage.cache_read_input_tokens),
    cacheWriteTokens: tokenCount(usage.cache_creation_input_tokens),
    cacheWrite1hTokens: isRecord(usage.cache_creation)
      ? tokenCount(usage.cache_creation.ephemeral_1h_input_tokens)
      : undefined,
  };
}

function openaiUsage(event: Record<string, unknown>): ObservedUsage | undefined {
  // A streamed event wraps the response (response.completed, .incomplete, .failed: each
  // carries the usage billed); a non-streaming answer is the response itself.
  const response =
    typeof event.type === "string" && event.type.startsWith("response.") ? event.response : event;
  if (!isRecord(response) || !isRecord(response.usage)) return undefined;
  const usage = response.usage;
  const input = tokenCount(usage.input_tokens);
  const cached = isRecord(usage.input_tokens_details)
    ? tokenCount(usage.input_tokens_details.cached_tokens)
    : undefined;
  const reasoning = isRecord(usage.output_tokens_details)
    ? tokenCount(usage.output_tokens_details.reasoning_tokens)
    : undefined;
  return {
    model: modelName(response.model),
    // input_tokens counts the cached ones too; output_tokens counts the reasoning.
    inputTokens: less(input, cached),
    cacheReadTokens: cached,
    outputTokens: tokenCount(usage.output_tokens),
    reasoningTokens: reasoning,
  };
}

function geminiUsage(event: Record<string, unknown>): ObservedUsage | undefined {
  const usage = event.usageMetadata;
  if (!isRecord(usage)) return undefined;
  const cached = tokenCount(usage.cachedContentTokenCount);
  const thoughts = tokenCount(usage.thoughtsTokenCount);
  return {
    model: modelName(event.modelVersion),
    // promptTokenCount counts the cached content too; a tool's prompt is billed as input.
    inputTokens: plus(
      less(tokenCount(usage.promptTokenCount), cached),
      tokenCount(usage.toolUsePromptTokenCount),
    ),
    cacheReadTokens: cached,
    outputTokens: tokenCount(usage.candidatesTokenCount),
    // Thinking is billed as output but not counted in candidatesTokenCount.
    reasoningTokens: thoughts,
    extraOutputTokens: thoughts,
  };
}

/** The usage a parsed event (or a whole non-streaming answer) of `api` reports, if any. */
export function usageInEvent(api: ApiKind, event: unknown): ObservedUsage | undefined {
  if (!isRecord(event)) return undefined;
  switch (api) {
    case "anthropic":
      return anthropicUsage(event);
    case "openai":
      return openaiUsage(event);
    case "gemini":
      return geminiUsage(event);
  }
}
