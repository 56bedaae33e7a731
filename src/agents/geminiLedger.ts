// What one task's Gemini runs add up to: turns and tokens across the first run and every
// resume. Gemini's `result` counts the tokens of its own process only (a resumed session starts
// again from zero, seen with Gemini CLI 0.61), so the task's usage is the sum of its runs, each
// run counted by the last `result` it wrote.

/** Token counts: the prompt (cached or not) and the model's output. */
export interface GeminiTokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

const ZERO: GeminiTokens = { inputTokens: 0, outputTokens: 0 };

function add(a: number, b: number): number {
  return Math.min(a + b, Number.MAX_SAFE_INTEGER);
}

function sum(a: GeminiTokens, b: GeminiTokens): GeminiTokens {
  return {
    inputTokens: add(a.inputTokens, b.inputTokens),
    outputTokens: add(a.outputTokens, b.outputTokens),
  };
}

/** Holds one task's totals. One ledger per task; one stream reader per run reads into it. */
export class GeminiLedger {
  private turnCount = 0;
  /** The runs before the current one, summed. */
  private settled: GeminiTokens = ZERO;
  /** The current run's usage, as its last result said. */
  private current: GeminiTokens = ZERO;

  /** Turns (model calls) started in this task, over all its runs. */
  get turns(): number {
    return this.turnCount;
  }

  /** The task's token totals so far. */
  get tokens(): GeminiTokens {
    return sum(this.settled, this.current);
  }

  /** A new run begins: the one before is settled. */
  beginRun(): void {
    this.settled = sum(this.settled, this.current);
    this.current = ZERO;
  }

  /** Counts a turn that started; returns its number in the task. */
  startTurn(): number {
    this.turnCount = add(this.turnCount, 1);
    return this.turnCount;
  }

  /** Takes the current run's usage from its result and returns the task's totals. */
  setRunUsage(usage: GeminiTokens): GeminiTokens {
    this.current = usage;
    return this.tokens;
  }
}
