// What a model's tokens cost: the price table (modelPrices.json, with the date it was checked
// and its sources) read and checked once, the rule that finds a model's row, and the price of a
// request's usage. A model the table does not know is priced at the highest price of its API
// for each kind of token, so a spending cap still holds when a vendor ships a new model before
// the table has it; the relay says so once per model (RelayOptions.onUnpricedModel).
import { EGRESS_LIMITS } from "./limits.js";
import rawTable from "./modelPrices.json" with { type: "json" };
import type { ApiKind } from "./relayApis.js";

/** Prices in US dollars per million tokens. */
export interface TokenPrices {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  /** Anthropic's 5-minute cache writes, and the others' (none of them bills writes). */
  readonly cacheWrite: number;
  /** Anthropic's 1-hour cache writes; the table gives cacheWrite's price when it names none. */
  readonly cacheWrite1h: number;
}

/** One model's row: its prices, and the higher ones of a request with a long input. */
export interface ModelPrice extends TokenPrices {
  readonly long?: TokenPrices & { readonly aboveInputTokens: number };
}

export interface PriceTable {
  /** The day the prices were last checked against their sources, YYYY-MM-DD. */
  readonly checked: string;
  readonly models: Readonly<Record<ApiKind, Readonly<Record<string, ModelPrice>>>>;
}

/** The tokens a price is asked for; `reasoning` is priced as output where an API bills it so. */
export interface PricedTokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** The part of `cacheWriteTokens` written for an hour, billed at `cacheWrite1h`. */
  readonly cacheWrite1hTokens: number;
  /** Tokens billed as output that `outputTokens` does not already count (Gemini's thoughts). */
  readonly extraOutputTokens: number;
}

export interface FoundPrice {
  readonly price: ModelPrice;
  /** False when the model is not in the table and the API's highest prices stand in. */
  readonly known: boolean;
}

const PRICE_KEYS = ["input", "output", "cacheRead", "cacheWrite", "cacheWrite1h"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function readPrices(value: unknown, where: string): TokenPrices {
  if (!isRecord(value)) throw new Error(`${where} is not an object`);
  const prices: Record<string, number> = {};
  for (const key of PRICE_KEYS) {
    const price = key === "cacheWrite1h" ? (value[key] ?? value.cacheWrite) : value[key];
    const highest = EGRESS_LIMITS.meterPricePerMillionUSD;
    if (typeof price !== "number" || !Number.isFinite(price) || price < 0 || price > highest) {
      throw new Error(`${where}.${key} is not a price from 0 to ${highest} dollars`);
    }
    prices[key] = price;
  }
  if ((prices.cacheWrite1h ?? 0) < (prices.cacheWrite ?? 0)) {
    throw new Error(`${where}.cacheWrite1h is below its cacheWrite`);
  }
  return prices as unknown as TokenPrices;
}

function readModel(value: unknown, where: string): ModelPrice {
  const prices = readPrices(value, where);
  const long = isRecord(value) ? value.long : undefined;
  if (long === undefined) return prices;
  const above = isRecord(long) ? long.aboveInputTokens : undefined;
  if (typeof above !== "number" || !Number.isSafeInteger(above) || above <= 0) {
    throw new Error(`${where}.long.aboveInputTokens is not a whole number above 0`);
  }
  const longPrices = readPrices(long, `${where}.long`);
  // A request's cost must never fall as its input grows past the threshold.
  if (PRICE_KEYS.some((key) => longPrices[key] < prices[key])) {
    throw new Error(`${where}.long has a price below the model's own`);
  }
  return { ...prices, long: { ...longPrices, aboveInputTokens: above } };
}

/**
 * Reads and checks a price table: a checked date, and for every API a non-empty set of models
 * whose prices are numbers from 0 to 10000. Throws on anything else. Pure.
 */
export function readPriceTable(raw: unknown): PriceTable {
  if (!isRecord(raw)) throw new Error("the price table is not an object");
  const checked = raw.checked;
  if (typeof checked !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(checked)) {
    throw new Error("the price table's checked date is not YYYY-MM-DD");
  }
  const apis = raw.models;
  if (!isRecord(apis)) throw new Error("the price table has no models");
  const models: Partial<Record<ApiKind, Record<string, ModelPrice>>> = {};
  for (const api of ["anthropic", "openai", "gemini"] as const) {
    const rows = apis[api];
    if (!isRecord(rows) || Object.keys(rows).length === 0) {
      throw new Error(`the price table has no models for ${api}`);
    }
    const read: Record<string, ModelPrice> = {};
    for (const [name, row] of Object.entries(rows)) {
      read[name] = readModel(row, `models.${api}.${name}`);
    }
    models[api] = read;
  }
  return { checked, models: models as PriceTable["models"] };
}

/** The table warden ships. */
export const PRICE_TABLE: PriceTable = readPriceTable(rawTable);

/**
 * What may follow a table name in a model's name and still be the same model: a dated
 * snapshot (`-20250929`, `-2025-09-29`, `-06-05`), `-latest`, or a preview or experiment tag
 * with its date. Anything else (`-mini`, `-pro`, `-codex`) is another model with its own price.
 */
const SNAPSHOT_SUFFIX =
  /^-(?:\d{8}|\d{4}-\d{2}-\d{2}|\d{2}-\d{4}|\d{2}-\d{2}|\d{3}|latest|(?:preview|exp)(?:-\d{2}-\d{2,4})?)$/;

/** Each kind of token at the highest price any of the API's models (long inputs too) has. */
function highestPrices(rows: Readonly<Record<string, ModelPrice>>): ModelPrice {
  const highest = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0 };
  for (const row of Object.values(rows)) {
    for (const key of PRICE_KEYS) {
      highest[key] = Math.max(highest[key], row[key], row.long?.[key] ?? 0);
    }
  }
  return highest;
}

/**
 * The row of `model` in the API's table: the exact name, or the longest name it is a snapshot
 * of; else the API's highest prices, marked unknown. Pure.
 */
export function findPrice(
  api: ApiKind,
  model: string,
  table: PriceTable = PRICE_TABLE,
): FoundPrice {
  const rows = table.models[api];
  const exact = Object.hasOwn(rows, model) ? rows[model] : undefined;
  if (exact !== undefined) return { price: exact, known: true };
  let best: string | undefined;
  for (const name of Object.keys(rows)) {
    if (!model.startsWith(name) || !SNAPSHOT_SUFFIX.test(model.slice(name.length))) continue;
    if (best === undefined || name.length > best.length) best = name;
  }
  const row = best === undefined ? undefined : rows[best];
  return row === undefined
    ? { price: highestPrices(rows), known: false }
    : { price: row, known: true };
}

/** What the tokens cost at `price`, in US dollars. Never negative for counts of 0 or more. */
export function costOf(tokens: PricedTokens, price: ModelPrice): number {
  const wholeInput = tokens.inputTokens + tokens.cacheReadTokens + tokens.cacheWriteTokens;
  const tier =
    price.long !== undefined && wholeInput > price.long.aboveInputTokens ? price.long : price;
  const dollars =
    tokens.inputTokens * tier.input +
    (tokens.outputTokens + tokens.extraOutputTokens) * tier.output +
    tokens.cacheReadTokens * tier.cacheRead +
    tokens.cacheWriteTokens * tier.cacheWrite +
    // An hour's write is counted in cacheWriteTokens too: only its premium is added here.
    tokens.cacheWrite1hTokens * (tier.cacheWrite1h - tier.cacheWrite);
  return dollars / 1_000_000;
}
