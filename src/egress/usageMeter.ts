// The meter of one model request: it reads the usage its answer reports as the bytes pass,
// prices it, and tells the spending gate each increase as soon as it is known. What it has
// recorded never goes down: every count is the highest the answer reported so far, and the
// cost the highest price any of those readings came to, so an answer that reports less in a
// later event, or absurd numbers, can only leave the recorded usage as it was or raise it.
import { answerReader, framingOf, type AnswerReader } from "./answerEvents.js";
import { costOf, findPrice, type FoundPrice } from "./modelPrices.js";
import type { ApiKind } from "./relayApis.js";
import type { RequestUsage, SpendGate } from "./spendGate.js";
import { usageInEvent, type ObservedUsage } from "./usageReading.js";

const COUNTS = [
  "inputTokens",
  "outputTokens",
  "cacheReadTokens",
  "cacheWriteTokens",
  "cacheWrite1hTokens",
  "reasoningTokens",
  "extraOutputTokens",
] as const;

type Counts = Record<(typeof COUNTS)[number], number>;

function noCounts(): Counts {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    extraOutputTokens: 0,
  };
}

export interface MeterContext {
  readonly api: ApiKind;
  /** The model the request's path names (Gemini's), used when the answer names none. */
  readonly pathModel?: string;
  readonly gate: SpendGate;
  /** Finds a model's price; told when it had to stand in for an unknown model. */
  readonly price: (model: string) => FoundPrice;
}

export class UsageMeter {
  readonly #context: MeterContext;
  readonly #reader: AnswerReader | undefined;
  readonly #counts: Counts = noCounts();
  #model: string | undefined;
  #cost = 0;

  constructor(context: MeterContext, contentType: string | undefined) {
    this.#context = context;
    this.#reader = answerReader(framingOf(contentType), (value) => {
      this.#observe(value);
    });
  }

  /** Whether the answer's framing is one the meter reads at all. */
  get reads(): boolean {
    return this.#reader !== undefined;
  }

  write(chunk: Buffer): void {
    try {
      this.#reader?.write(chunk);
    } catch {
      // A reading failure only loses usage; the answer goes on as it is.
    }
  }

  end(): void {
    try {
      this.#reader?.end();
    } catch {
      // As in write.
    }
  }

  #observe(value: unknown): void {
    const observed = usageInEvent(this.#context.api, value);
    if (observed !== undefined) this.#take(observed);
  }

  #take(observed: ObservedUsage): void {
    // The first model an answer names is the one its request is priced as.
    this.#model ??= observed.model;
    const before = { ...this.#counts };
    for (const key of COUNTS) {
      this.#counts[key] = Math.max(this.#counts[key], observed[key] ?? 0);
    }
    const model = this.#model ?? this.#context.pathModel ?? "unknown";
    const costBefore = this.#cost;
    this.#cost = Math.max(this.#cost, costOf(this.#counts, this.#context.price(model).price));
    const increase: RequestUsage = {
      model,
      inputTokens: this.#counts.inputTokens - before.inputTokens,
      outputTokens: this.#counts.outputTokens - before.outputTokens,
      cacheReadTokens: this.#counts.cacheReadTokens - before.cacheReadTokens,
      cacheWriteTokens: this.#counts.cacheWriteTokens - before.cacheWriteTokens,
      reasoningTokens: this.#counts.reasoningTokens - before.reasoningTokens,
      costUSD: this.#cost - costBefore,
    };
    const grew = increase.costUSD > 0 || COUNTS.some((key) => this.#counts[key] > before[key]);
    if (!grew) return;
    try {
      this.#context.gate.record(increase);
    } catch {
      // The gate promises not to throw; if it does, the answer still reaches the agent.
    }
  }
}

/** The price finder of one relay: the table's, with a callback for a model it lacks. */
export function priceFinder(
  api: ApiKind,
  onUnknown: (model: string) => void,
): (model: string) => FoundPrice {
  return (model) => {
    const found = findPrice(api, model);
    if (!found.known) onUnknown(model);
    return found;
  };
}
