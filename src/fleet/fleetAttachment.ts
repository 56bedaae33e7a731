// The fleet's executor of a task: a lease in the run record with an attempt number, renewed by
// heartbeats. Every write that must be the holder's alone (the terminal record, events) is fenced:
// the run record is changed by compare-and-set only while its lease still names this attempt,
// and events are published expecting the last sequence this holder wrote.
import {
  attachmentClosed,
  AttachmentClosedError,
  buildTerminal,
  MessageStateError,
  STORE_LIMITS,
  checkExecutorEventType,
  ChildrenRunningError,
  planApproval,
  STORE_EVENTS,
  STORE_TIMING,
  type ApprovalRequest,
  type InboxMessage,
  type StoreFinishOptions,
  type TaskAttachment,
  type TaskSpec,
  type TerminalInput,
  type TerminalRecord,
} from "../store/index.js";
import { cutText } from "../protocol/index.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { FleetContext } from "./context.js";
import { LeaseLostError } from "./errors.js";
import type { EventAppender } from "./eventStream.js";
import { FLEET_TIMING } from "./limits.js";
import { KEYS } from "./layout.js";
import {
  ENTRY_KINDS,
  readApprovalList,
  readMessageList,
  runningChildren,
  updateEntry,
} from "./entries.js";
import {
  changeRun,
  encode,
  isWrongRevision,
  readRun,
  type Lease,
  type RunRecord,
} from "./runRecord.js";

export class FleetAttachment implements TaskAttachment {
  readonly id: string;
  readonly spec: TaskSpec;
  readonly attempt: number;
  readonly #ctx: FleetContext;
  readonly #events: EventAppender;
  readonly #beat: NodeJS.Timeout;
  #closed = false;
  #lost = false;

  constructor(ctx: FleetContext, spec: TaskSpec, lease: Lease, events: EventAppender) {
    this.#ctx = ctx;
    this.id = spec.id;
    this.spec = spec;
    this.attempt = lease.attempt;
    this.#events = events;
    this.#beat = setInterval(() => void this.#heartbeat(), ctx.heartbeatMs);
    this.#beat.unref();
  }

  get deadline(): number {
    return this.spec.deadline;
  }

  deadlinePassed(): boolean {
    return this.#ctx.now() >= this.spec.deadline;
  }

  get lastSeq(): number {
    return this.#events.lastSeq;
  }

  /** Whether the lease was found reaped or taken: then nothing this holder writes is kept. */
  get leaseLost(): boolean {
    return this.#lost;
  }

  /**
   * Appends one event and returns its seq, or undefined when the task's events reached their
   * bound and it was dropped (one `log_full` notice says so).
   */
  async appendEvent(type: string, data: Record<string, unknown> = {}): Promise<number | undefined> {
    this.#open();
    checkExecutorEventType(type);
    return this.#append(type, data);
  }

  async takeMessages(): Promise<InboxMessage[]> {
    this.#open();
    await this.#checkLease();
    const taken: InboxMessage[] = [];
    for (const message of await readMessageList(this.#ctx, this.id)) {
      if (message.state !== "pending") continue;
      const took = await updateEntry(
        this.#ctx,
        ENTRY_KINDS.message,
        KEYS.message(this.id, message.n),
        (m: InboxMessage): InboxMessage | undefined =>
          m.state === "pending"
            ? { ...m, state: "in_flight", takenAt: this.#ctx.now() }
            : undefined,
      );
      if (took !== undefined) taken.push(took);
    }
    return taken;
  }

  async deliver(n: number, reply?: string): Promise<InboxMessage> {
    this.#open();
    await this.#checkLease();
    const delivered = await updateEntry(
      this.#ctx,
      ENTRY_KINDS.message,
      KEYS.message(this.id, n),
      (m: InboxMessage) => {
        if (m.state !== "in_flight") {
          throw new MessageStateError(
            `message ${n} of task ${this.id} is ${m.state}, not in_flight`,
          );
        }
        const next: InboxMessage = { ...m, state: "delivered", deliveredAt: this.#ctx.now() };
        if (reply !== undefined) {
          const { text, cut } = cutText(reply, STORE_LIMITS.summaryBytes);
          next.reply = text;
          next.replyCut = cut;
        }
        return next;
      },
    );
    if (delivered === undefined) {
      throw new MessageStateError(`message ${n} of task ${this.id} does not exist`);
    }
    return delivered;
  }

  async askApproval(call: { tool: string; input: string }): Promise<ApprovalRequest> {
    this.#open();
    const ctx = this.#ctx;
    for (let i = 0; i < FLEET_TIMING.casAttempts; i++) {
      await this.#checkLease();
      const requests = await readApprovalList(ctx, this.id);
      const request = planApproval(
        this.id,
        requests,
        { ...call, attempt: this.attempt },
        ctx.now(),
      );
      try {
        await ctx.layout.kv.create(KEYS.approval(this.id, request.n), encode(request));
        return request;
      } catch (error) {
        if (!isWrongRevision(error)) throw error;
      }
    }
    throw new LeaseLostError(`the approval prompts of task ${this.id} kept changing`);
  }

  async cancelRequested(): Promise<boolean> {
    this.#open();
    return (await readRun(this.#ctx.layout.kv, this.id))?.run.cancel !== undefined;
  }

  /**
   * Records how the task ended: waits (bounded) for running children, appends `finished`, then
   * writes the terminal record by compare-and-set while the lease is still this attempt's.
   */
  async finish(input: TerminalInput, options: StoreFinishOptions = {}): Promise<TerminalRecord> {
    this.#open();
    buildTerminal(input, { at: 0, lastSeq: 0, attempts: this.attempt, cancel: undefined });
    const ctx = this.#ctx;
    const giveUpAt = ctx.now() + (options.childWaitMs ?? STORE_TIMING.childFinishWaitMs);
    for (;;) {
      const running = await runningChildren(ctx, this.id);
      if (running.length === 0) break;
      if (ctx.now() >= giveUpAt) {
        throw new ChildrenRunningError(
          `task ${this.id} cannot record its end while its children ${running.join(", ")} still run`,
          { children: running },
        );
      }
      await sleep(FLEET_TIMING.childPollMs);
    }
    await this.#checkLease();
    const finished: Record<string, unknown> = { state: input.state };
    if (input.stoppedBy !== undefined) finished.stoppedBy = input.stoppedBy;
    await this.#append(STORE_EVENTS.finished, finished);
    const record = await this.#changeOwnRun((run) => {
      const built = buildTerminal(input, {
        at: ctx.now(),
        lastSeq: this.#events.lastSeq,
        attempts: run.attempts,
        cancel: run.cancel,
      });
      const next: RunRecord = { ...run, terminal: built };
      delete next.lease;
      return { write: next, result: built };
    });
    this.#stop();
    return record;
  }

  /** Lets go of the lease without an end; a lost lease is let go of quietly. */
  async release(): Promise<void> {
    if (this.#closed) return;
    this.#stop();
    try {
      await this.#changeOwnRun((run) => {
        const next = { ...run };
        delete next.lease;
        return { write: next, result: undefined };
      });
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
    }
  }

  get released(): boolean {
    return this.#closed;
  }

  async #append(type: string, data: Record<string, unknown>): Promise<number | undefined> {
    try {
      return await this.#events.append(type, data, this.#ctx.now());
    } catch (error) {
      if (error instanceof LeaseLostError) this.#lost = true;
      throw error;
    }
  }

  /** Changes the run record only while its lease is this attempt's: the fencing rule. */
  async #changeOwnRun<T>(change: (run: RunRecord) => { write: RunRecord; result: T }): Promise<T> {
    return changeRun(this.#ctx.layout.kv, this.id, (run) => {
      if (run.lease?.attempt !== this.attempt || run.terminal !== undefined) {
        this.#lost = true;
        throw new LeaseLostError(
          `attempt ${this.attempt} of task ${this.id} lost its lease, so it may not write`,
        );
      }
      return change(run);
    });
  }

  /** Refuses (LEASE_LOST) once the run record names another attempt or has ended. */
  async #checkLease(): Promise<void> {
    const read = await readRun(this.#ctx.layout.kv, this.id);
    if (read?.run.lease?.attempt !== this.attempt || read.run.terminal !== undefined) {
      this.#lost = true;
      throw new LeaseLostError(
        `attempt ${this.attempt} of task ${this.id} lost its lease, so it may not write`,
      );
    }
  }

  async #heartbeat(): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#changeOwnRun((run) => {
        if (run.lease === undefined) return { write: run, result: undefined };
        return {
          write: { ...run, lease: { ...run.lease, beatAt: this.#ctx.now() } },
          result: undefined,
        };
      });
    } catch {
      // A lost lease is seen by the next write, which refuses; a failed beat is tried again.
      if (this.#lost) this.#stop();
    }
  }

  #stop(): void {
    this.#closed = true;
    clearInterval(this.#beat);
  }

  #open(): void {
    if (this.#lost) {
      throw new LeaseLostError(`attempt ${this.attempt} of task ${this.id} lost its lease`);
    }
    if (this.#closed) throw new AttachmentClosedError(attachmentClosed(this.id));
  }
}
