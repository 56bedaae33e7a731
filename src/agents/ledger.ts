// What an agent's runs add up to: the turns started and the tokens used. A reader of one run
// keeps one; an agent whose task is a series of runs (Codex, Gemini) gives each run's reader the
// task's ledger, so that turn numbers and usage continue across resumes. Every count stays a
// safe integer however much a hostile stream claims.

/** Token counts: the input (cached or not) and the output (reasoning included). */
export interface Tokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export const NO_TOKENS: Tokens = { inputTokens: 0, outputTokens: 0 };

function add(a: number, b: number): number {
  return Math.min(a + b, Number.MAX_SAFE_INTEGER);
}

export function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    inputTokens: add(a.inputTokens, b.inputTokens),
    outputTokens: add(a.outputTokens, b.outputTokens),
  };
}

export class UsageLedger {
  private turnCount = 0;
  private total: Tokens = NO_TOKENS;

  /** Turns started so far. */
  get turns(): number {
    return this.turnCount;
  }

  /** The token totals so far. */
  get tokens(): Tokens {
    return this.total;
  }

  /** Counts a turn that started; returns its number. */
  startTurn(): number {
    this.turnCount = add(this.turnCount, 1);
    return this.turnCount;
  }

  /** Adds what a stretch of work used; returns the totals. */
  add(used: Tokens): Tokens {
    this.total = addTokens(this.total, used);
    return this.tokens;
  }
}
