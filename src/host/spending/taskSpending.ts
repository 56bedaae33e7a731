// The host's spend gate for one attach of a task: the relay asks it before each model request
// and tells it what each answer used. It holds the task's spend in memory (exact, at once) and
// writes it to the task's record and the day's ledger as soon as the last write is done. A check
// reads the rest of the tree's records at once (a few small files; at most every
// SPEND_LIMITS.treeReadMs), so a sibling's spend counts as soon as it is written; the day's
// ledger is read in the background, so the daily cap is a quarter second behind at most.
//
// The first refusal ends the task: it is told (an event, a warning) and, once the executor has
// armed the stop, the sandbox is stopped, as the first failure of the API is (apiFailure.ts).
import type { RequestUsage, SpendGate } from "../../egress/index.js";
import { errorMessage } from "../../lang/index.js";
import { taskLayout } from "../taskLayout.js";
import { SPEND_LIMITS } from "./limits.js";
import { capRefusal, type BudgetRefusal } from "./spendCaps.js";
import { appendLedger, LedgerTail, utcDay } from "./spendLedger.js";
import { startingTotals, writeSpendRecord } from "./spendRecord.js";
import { addUsage, hasSpent, spendSince, type SpendTotals } from "./spendTotals.js";
import { readTreeCaps, TreeSpend, type TreeCap } from "./treeSpend.js";

/** The event a watcher sees of a task's spend: its totals so far, tokens and US dollars. */
export const USAGE_EVENT_TYPE = "usage";
/** The event of the refusal that ends the task: `cap`, `message`, `capUSD`, `spentUSD`. */
export const BUDGET_EVENT_TYPE = "budget";

export interface SpendingOptions {
  readonly dataDir: string;
  readonly taskId: string;
  /** The task's ancestors, root first, as its spec holds them. */
  readonly ancestors: readonly string[];
  /** The data directory's daily cap from the user's config file; undefined or 0 for none. */
  readonly dailyCapUSD?: number | undefined;
  /** A `usage` event: the totals so far. Called at most every SPEND_LIMITS.usageEventMs. */
  readonly onUsage: (totals: SpendTotals) => void;
  /** The first refusal, once. */
  readonly onRefusal: (refusal: BudgetRefusal) => void;
  /** A record or the ledger could not be written or read; the gate goes on. */
  readonly onWarning: (text: string) => void;
  readonly now?: () => number;
}

export class TaskSpending implements SpendGate {
  #totals: SpendTotals;
  /** What the task's record holds. */
  #recorded: SpendTotals;
  /** What the ledger holds of this task. */
  #ledgered: SpendTotals;
  /** What the last `usage` event said. */
  #told: SpendTotals;
  #lastUsageAt = -Infinity;
  #usageEvents = 0;
  /** What each capped subtree has spent beside the running task, as last read. */
  #othersUSD = new Map<string, number>();
  #refusal: BudgetRefusal | undefined;
  #stop: (() => void) | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  /** A flush waits its turn in #flushing: a burst of increases becomes one write. */
  #flushQueued = false;
  #treeReadAt = -Infinity;
  /**
   * What this task's own lines add to the ledger's file of `day`, as it wrote them: its part of
   * the day counts from the moment its line is written, not when the tail next reads the file.
   */
  #ownLedgered = { day: "", usd: 0 };
  #refreshing: Promise<void> | undefined;
  readonly #refreshTimer: NodeJS.Timeout;
  readonly #warned = new Set<string>();
  readonly #tail: LedgerTail;
  readonly #tree: TreeSpend;
  readonly #now: () => number;
  readonly #recordPath: string;
  #closed = false;

  private constructor(
    private readonly options: SpendingOptions,
    start: SpendTotals,
    private readonly caps: readonly TreeCap[],
  ) {
    this.#totals = start;
    this.#recorded = start;
    this.#ledgered = start;
    this.#told = start;
    this.#now = options.now ?? Date.now;
    this.#recordPath = taskLayout(options.dataDir, options.taskId).spend;
    this.#tail = new LedgerTail(options.dataDir, options.taskId);
    this.#tree = new TreeSpend(options.dataDir, options.taskId, caps[0]?.id);
    this.#refreshTimer = setInterval(() => {
      void this.refresh();
    }, SPEND_LIMITS.refreshMs);
    this.#refreshTimer.unref();
  }

  /**
   * Reads where the task's spend stands (its record: a damaged one is refused), the caps of the
   * task and its ancestors, and the spend of its tree and its day, before the first request.
   */
  static async open(options: SpendingOptions): Promise<TaskSpending> {
    const start = await startingTotals(taskLayout(options.dataDir, options.taskId).spend);
    const caps = await readTreeCaps(options.dataDir, [...options.ancestors, options.taskId]);
    const spending = new TaskSpending(options, start, caps);
    await spending.refresh();
    spending.#ownLedgered = { day: spending.#tail.day, usd: spending.#tail.selfTotal };
    return spending;
  }

  get totals(): SpendTotals {
    return this.#totals;
  }

  get refusal(): BudgetRefusal | undefined {
    return this.#refusal;
  }

  get #dailyCap(): number | undefined {
    const cap = this.options.dailyCapUSD;
    return cap !== undefined && Number.isFinite(cap) && cap > 0 ? cap : undefined;
  }

  check(): BudgetRefusal | undefined {
    if (this.#refusal !== undefined) return this.#refusal;
    if (this.#now() - this.#treeReadAt >= SPEND_LIMITS.treeReadMs) this.#readTree();
    const ownUSD = this.#totals.costUSD;
    const dailyCap = this.#dailyCap;
    const refusal = capRefusal({
      self: this.options.taskId,
      ownUSD,
      trees: this.caps.map(({ id, capUSD }) => ({
        id,
        capUSD,
        spentUSD: (this.#othersUSD.get(id) ?? 0) + ownUSD,
      })),
      ...(dailyCap === undefined
        ? {}
        : {
            daily: { capUSD: dailyCap, spentUSD: this.#spentToday() },
          }),
    });
    if (refusal === undefined) return undefined;
    this.#refusal = refusal;
    this.#flushNow();
    this.options.onRefusal(refusal);
    this.#stop?.();
    return refusal;
  }

  /**
   * The day's spend: the other tasks' lines as last read, this task's lines (as written, or as
   * read when an earlier attach wrote more), and what it has spent but not written yet.
   */
  #spentToday(): number {
    const day = utcDay(this.#now());
    const tail = this.#tail;
    const othersUSD = tail.day === day ? tail.total - tail.selfTotal : 0;
    const ownRead = tail.day === day ? tail.selfTotal : 0;
    const ownWritten = this.#ownLedgered.day === day ? this.#ownLedgered.usd : 0;
    const unwritten = spendSince(this.#ledgered, this.#totals).costUSD;
    return othersUSD + Math.max(ownRead, ownWritten) + unwritten;
  }

  record(increase: RequestUsage): void {
    try {
      const after = addUsage(this.#totals, increase);
      if (!hasSpent(this.#totals, after)) return;
      this.#totals = after;
      if (!this.#closed) this.#flushNow();
    } catch (error) {
      this.#warnOnce("record", `the spend of a request was not counted: ${errorMessage(error)}`);
    }
  }

  /** `stop` ends the task; called now when the gate has refused already. */
  arm(stop: () => void): void {
    this.#stop = stop;
    if (this.#refusal !== undefined) stop();
  }

  disarm(): void {
    this.#stop = undefined;
  }

  /** Resolves once what was recorded so far is in the task's record and the ledger. */
  async flushed(): Promise<void> {
    await this.#flushing;
  }

  /** Reads the tree's records and the day's ledger again; one read at a time. */
  async refresh(): Promise<void> {
    this.#refreshing ??= this.#read().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  /** What each capped subtree has spent beside this task, from the records as they are now. */
  #readTree(): void {
    this.#treeReadAt = this.#now();
    if (this.caps.length === 0) return;
    try {
      const selfUSD = this.#totals.costUSD;
      const sums = this.#tree.read(selfUSD);
      // In a tree cut short the running task may be left out; then no sum holds its spend.
      const counted = sums.has(this.options.taskId) ? selfUSD : 0;
      for (const { id } of this.caps) {
        this.#othersUSD.set(id, Math.max(0, (sums.get(id) ?? counted) - counted));
      }
      if (this.#tree.cut) {
        this.#warnOnce(
          "cut",
          `the tree has over ${SPEND_LIMITS.treeTasks} tasks; the rest's spend is not counted`,
        );
      }
    } catch (error) {
      this.#warnOnce("tree", `the spend of the tree could not be read: ${errorMessage(error)}`);
    }
  }

  async #read(): Promise<void> {
    try {
      await this.#tree.learnShape();
      this.#readTree();
      if (this.#dailyCap !== undefined) await this.#tail.read(this.#now());
    } catch (error) {
      this.#warnOnce("read", `the spend of the day could not be read: ${errorMessage(error)}`);
    }
  }

  #flushNow(): void {
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#flushQueued) return;
    this.#flushQueued = true;
    this.#flushing = this.#flushing.then(() => {
      this.#flushQueued = false;
      return this.#flush();
    });
  }

  /** Writes the record, then the ledger's line of what is new, then a `usage` event if due. */
  async #flush(final = false): Promise<void> {
    const totals = this.#totals;
    const now = this.#now();
    // The record (which the tree's checks read) and the ledger (which the daily cap reads) are
    // written at once: each is a durable write, and a sibling's check waits on neither.
    const writes: Promise<void>[] = [];
    if (hasSpent(this.#recorded, totals)) {
      writes.push(
        writeSpendRecord(this.#recordPath, totals, now).then(() => {
          this.#recorded = totals;
        }),
      );
    }
    if (hasSpent(this.#ledgered, totals)) {
      const increase = spendSince(this.#ledgered, totals);
      writes.push(
        appendLedger(this.options.dataDir, {
          at: now,
          task: this.options.taskId,
          ...increase,
        }).then(() => {
          const day = utcDay(now);
          const before = this.#ownLedgered.day === day ? this.#ownLedgered.usd : 0;
          this.#ownLedgered = { day, usd: before + increase.costUSD };
          this.#ledgered = totals;
        }),
      );
    }
    for (const written of await Promise.allSettled(writes)) {
      if (written.status === "rejected") {
        this.#warnOnce(
          "write",
          `the task's spend could not be written: ${errorMessage(written.reason)}`,
        );
      }
    }
    const due = final || now - this.#lastUsageAt >= SPEND_LIMITS.usageEventMs;
    const room = final || this.#usageEvents < SPEND_LIMITS.usageEvents;
    if (hasSpent(this.#told, totals) && due && room) {
      this.#told = totals;
      this.#lastUsageAt = now;
      this.#usageEvents++;
      this.options.onUsage(totals);
    } else if (hasSpent(this.#told, totals) && room && !final && !this.#closed) {
      // A later flush may never come: the event waits for its interval, not for more spend.
      this.#flushTimer ??= setTimeout(
        () => {
          this.#flushTimer = undefined;
          this.#flushNow();
        },
        Math.max(0, this.#lastUsageAt + SPEND_LIMITS.usageEventMs - now),
      );
    }
  }

  #warnOnce(key: string, text: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.options.onWarning(text);
  }

  /** Stops reading and writes what is left: the record, the ledger and the last `usage` event. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#refreshTimer);
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    await this.#flushing;
    await this.#flush(true);
    await this.#refreshing;
  }
}
