// What one task's Gemini runs add up to: turns and tokens across the first run and every
// resume. Gemini's `result` counts the tokens of its own process only (a resumed session starts
// again from zero, seen with Gemini CLI 0.61), so the task's usage is the sum of its runs, each
// run counted by the last `result` it wrote.
import { NO_TOKENS, UsageLedger, addTokens, type Tokens } from "../ledger.js";

/** Holds one task's totals. One ledger per task; one stream reader per run reads into it. */
export class GeminiLedger extends UsageLedger {
  /** The current run's usage, as its last result said; the runs before are the base totals. */
  private current: Tokens = NO_TOKENS;

  /** The task's token totals so far. */
  override get tokens(): Tokens {
    return addTokens(super.tokens, this.current);
  }

  /** A new run begins: the one before is settled. */
  beginRun(): void {
    this.add(this.current);
    this.current = NO_TOKENS;
  }

  /** Takes the current run's usage from its result and returns the task's totals. */
  setRunUsage(usage: Tokens): Tokens {
    this.current = usage;
    return this.tokens;
  }
}
