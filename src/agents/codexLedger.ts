// What one task's Codex runs add up to: turns and tokens across the first run and every resume.
//
// `codex exec` reports, at each `turn.completed`, the usage of its whole thread so far, and a
// resumed thread starts from the totals of the runs before it (seen with Codex CLI 0.171: three
// runs of one thread report 240, 480 and 720 input tokens for 240 each). So a run's share is
// its snapshot less the thread's snapshot before it. A snapshot smaller than the last one means
// the counter started again (a Codex that does not carry totals into a resume, or a new
// thread under an old id): then the snapshot counts whole. A task's usage only ever grows.
import type { CodexUsageLine } from "./codexEvents.js";
import { CODEX_LIMITS } from "./codexLimits.js";

/** Token counts: the input (cached or not) and the output (reasoning included). */
export interface CodexTokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

const ZERO: CodexTokens = { inputTokens: 0, outputTokens: 0 };

function add(a: number, b: number): number {
  return Math.min(a + b, Number.MAX_SAFE_INTEGER);
}

/** Holds one task's totals. One ledger per task; one stream reader per run reads into it. */
export class CodexLedger {
  private turnCount = 0;
  private total: CodexTokens = ZERO;
  /** Each thread's last snapshot, the most recently used last (a Map keeps insertion order). */
  private readonly snapshots = new Map<string, CodexTokens>();

  /** Turns started in this task, over all its runs. */
  get turns(): number {
    return this.turnCount;
  }

  /** The task's token totals so far. */
  get tokens(): CodexTokens {
    return this.total;
  }

  /** Counts a turn that started; returns its number in the task. */
  startTurn(): number {
    this.turnCount = add(this.turnCount, 1);
    return this.turnCount;
  }

  /**
   * Takes a thread's usage snapshot from a `turn.completed` and returns the task's totals.
   * A missing count reads as zero.
   */
  addSnapshot(threadId: string, usage: CodexUsageLine): CodexTokens {
    const snapshot: CodexTokens = {
      inputTokens: usage.input_tokens ?? 0,
      outputTokens: usage.output_tokens ?? 0,
    };
    const before = this.snapshots.get(threadId) ?? ZERO;
    const grew =
      snapshot.inputTokens >= before.inputTokens && snapshot.outputTokens >= before.outputTokens;
    const delta = grew
      ? {
          inputTokens: snapshot.inputTokens - before.inputTokens,
          outputTokens: snapshot.outputTokens - before.outputTokens,
        }
      : snapshot;
    this.total = {
      inputTokens: add(this.total.inputTokens, delta.inputTokens),
      outputTokens: add(this.total.outputTokens, delta.outputTokens),
    };
    this.snapshots.delete(threadId);
    this.snapshots.set(threadId, snapshot);
    if (this.snapshots.size > CODEX_LIMITS.rememberedThreads) {
      const oldest = this.snapshots.keys().next();
      if (oldest.done !== true) this.snapshots.delete(oldest.value);
    }
    return this.total;
  }
}
