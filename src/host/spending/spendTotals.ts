// What a task has spent, summed over every request the relay metered for it. Pure. The numbers
// come from an upstream's answers, which the relay reads but cannot vouch for, so every
// increase is cleaned before it is added: a total only ever grows, and it never leaves the
// range of finite numbers a JSON file holds exactly.
import type { RequestUsage } from "../../egress/index.js";
import { SPEND_LIMITS } from "./limits.js";

export interface SpendTotals {
  readonly costUSD: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
}

export const TOKEN_FIELDS = [
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "reasoningTokens",
] as const;

export const NO_SPEND: SpendTotals = {
  costUSD: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

/**
 * An increase as it may be added: NaN, a negative number or anything not a number adds
 * nothing; Infinity and a number past `max` add `max`, so a hostile answer can exhaust a cap
 * but never lower a total or make it Infinity.
 */
export function cleanIncrease(value: unknown, max: number): number {
  if (typeof value !== "number" || Number.isNaN(value) || value <= 0) return 0;
  return Math.min(value, max);
}

/** `a + b`, saturating at `max`. */
function saturatingSum(a: number, b: number, max: number): number {
  return Math.min(a + b, max);
}

/** The totals after one more increase. Never lower than `totals` in any field. */
export function addUsage(totals: SpendTotals, increase: Partial<RequestUsage>): SpendTotals {
  const tokens = (field: (typeof TOKEN_FIELDS)[number]): number =>
    saturatingSum(
      totals[field],
      Math.floor(cleanIncrease(increase[field], SPEND_LIMITS.maxTokens)),
      SPEND_LIMITS.maxTokens,
    );
  return {
    costUSD: saturatingSum(
      totals.costUSD,
      cleanIncrease(increase.costUSD, SPEND_LIMITS.maxRecordedUSD),
      SPEND_LIMITS.maxRecordedUSD,
    ),
    inputTokens: tokens("inputTokens"),
    outputTokens: tokens("outputTokens"),
    cacheReadTokens: tokens("cacheReadTokens"),
    cacheWriteTokens: tokens("cacheWriteTokens"),
    reasoningTokens: tokens("reasoningTokens"),
  };
}

/** The increase from `before` to `after`, field by field (never negative). */
export function spendSince(before: SpendTotals, after: SpendTotals): SpendTotals {
  const less = (a: number, b: number): number => Math.max(0, a - b);
  return {
    costUSD: less(after.costUSD, before.costUSD),
    inputTokens: less(after.inputTokens, before.inputTokens),
    outputTokens: less(after.outputTokens, before.outputTokens),
    cacheReadTokens: less(after.cacheReadTokens, before.cacheReadTokens),
    cacheWriteTokens: less(after.cacheWriteTokens, before.cacheWriteTokens),
    reasoningTokens: less(after.reasoningTokens, before.reasoningTokens),
  };
}

function sameTotals(a: SpendTotals, b: SpendTotals): boolean {
  return a.costUSD === b.costUSD && TOKEN_FIELDS.every((field) => a[field] === b[field]);
}

export function hasSpent(before: SpendTotals, after: SpendTotals): boolean {
  return !sameTotals(before, after);
}

/**
 * The totals a stored object holds, or undefined when it is not such an object: a field that is
 * missing, not a finite number, negative, or past its bound (the cost above
 * SPEND_LIMITS.maxRecordedUSD, a token count not a whole number) makes the whole object refused,
 * never read as a lower number.
 */
export function readTotals(value: unknown): SpendTotals | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  const cost = record.costUSD;
  if (typeof cost !== "number" || !Number.isFinite(cost)) return undefined;
  if (cost < 0 || cost > SPEND_LIMITS.maxRecordedUSD) return undefined;
  const totals: Record<string, number> = { costUSD: cost };
  for (const field of TOKEN_FIELDS) {
    const count = record[field];
    if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0) return undefined;
    totals[field] = count;
  }
  return totals as unknown as SpendTotals;
}
