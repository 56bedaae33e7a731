// What one task's Codex runs add up to: turns and tokens across the first run and every resume.
//
// `codex exec` reports, at each `turn.completed`, the usage of its whole thread so far, and a
// resumed thread starts from the totals of the runs before it (seen with Codex CLI 0.171: three
// runs of one thread report 240, 480 and 720 input tokens for 240 each). So a run's share is
// its snapshot less the thread's snapshot before it. A snapshot smaller than the last one means
// the counter started again (a Codex that does not carry totals into a resume, or a new
// thread under an old id): then the snapshot counts whole. A task's usage only ever grows.
import { RecentMap } from "../../lang/index.js";
import { NO_TOKENS, UsageLedger, type Tokens } from "../ledger.js";
import { CODEX_LIMITS } from "../limits.js";
import type { CodexUsageLine } from "./lines.js";

/** Holds one task's totals. One ledger per task; one stream reader per run reads into it. */
export class CodexLedger extends UsageLedger {
  /** Each thread's last snapshot, the most recently used last. */
  private readonly snapshots = new RecentMap<string, Tokens>(CODEX_LIMITS.rememberedThreads);

  /**
   * Takes a thread's usage snapshot from a `turn.completed` and returns the task's totals.
   * A missing count reads as zero.
   */
  addSnapshot(threadId: string, usage: CodexUsageLine): Tokens {
    const snapshot: Tokens = {
      inputTokens: usage.input_tokens ?? 0,
      outputTokens: usage.output_tokens ?? 0,
    };
    const before = this.snapshots.get(threadId) ?? NO_TOKENS;
    const grew =
      snapshot.inputTokens >= before.inputTokens && snapshot.outputTokens >= before.outputTokens;
    const delta = grew
      ? {
          inputTokens: snapshot.inputTokens - before.inputTokens,
          outputTokens: snapshot.outputTokens - before.outputTokens,
        }
      : snapshot;
    this.snapshots.set(threadId, snapshot);
    return this.add(delta);
  }
}
