// The relay's side of a spending cap: the relay meters every model answer it forwards and asks
// a gate, which the host supplies, whether the next request may go upstream. The gate decides
// (a task's cap, its tree's, a daily one); the relay only measures and refuses.

/** What one model request used, as far as its answer has shown so far. Never negative. */
export interface RequestUsage {
  /** The model the answer names, cleaned; `unknown` when it named none. */
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Anthropic cache reads, OpenAI cached input, Gemini cached content. */
  readonly cacheReadTokens: number;
  /** Anthropic cache writes; 0 for the others. */
  readonly cacheWriteTokens: number;
  /** OpenAI reasoning and Gemini thinking tokens, counted within or beside output as each API says. */
  readonly reasoningTokens: number;
  /** The price of the tokens above, from the price table, in US dollars. */
  readonly costUSD: number;
}

/** Why the gate refuses a request: shown to the agent in the API's own error shape. */
export interface SpendRefusal {
  readonly message: string;
}

export interface SpendGate {
  /**
   * Asked before each model request goes upstream. Cheap and synchronous: the relay waits on
   * nothing to ask it. A refusal is answered to the agent at once and nothing goes upstream.
   */
  check(): SpendRefusal | undefined;
  /**
   * Told what a request used as its answer passes: called with the increase since the last
   * call for the same request (every field zero or more), so the sum over calls is the
   * request's usage. Never throws into the relay.
   */
  record(increase: RequestUsage): void;
}
