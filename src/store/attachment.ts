// An Attachment is the one executor of a task: it holds attach.lock, appends events, takes and
// answers messages, and writes terminal.json as its last act. Everything else only reads.
import { readMessageFile, type MessageFile } from "./messageFiles.js";
import type { ReplyFilePiece } from "./replyFiles.js";
import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { definedFields } from "../lang/index.js";
import { cutText } from "../protocol/index.js";
import type { HeldLock } from "./attachLock.js";
import { writeFileAtomic } from "./atomicFile.js";
import type { StoreContext } from "./context.js";
import { taskEnvironment } from "./envProtocol.js";
import { attachmentClosed, AttachmentClosedError, ChildrenRunningError } from "./errors.js";
import { EventLog, STORE_EVENTS } from "./eventLog.js";
import {
  appendReplyPiece,
  deliverMessage,
  requeueInFlight,
  takeOldestPending,
  takePending,
  withInboxLock,
  type InboxMessage,
} from "./inbox.js";
import {
  awaitApproval,
  expireApprovals,
  openApproval,
  type ApprovalRequest,
  type AwaitApprovalOptions,
} from "./approvals.js";
import { STORE_LIMITS, STORE_TIMING } from "./limits.js";
import { ensureRealDir } from "./noFollow.js";
import { readCancelSync } from "./readTask.js";
import { readTaskIds } from "./resolveId.js";
import { uniquePrefix } from "./shortIds.js";
import type { TaskSpec } from "./spec.js";
import { runningChildren } from "./state.js";
import type { TaskPaths } from "./taskDir.js";
import { buildTerminal, type TerminalInput } from "./buildTerminal.js";
import {
  clearSuspension,
  readSuspendRequestSync,
  writeSuspended,
  type SuspendReason,
  type SuspendRecord,
  type SuspendRequest,
} from "./suspension.js";
import type { TerminalRecord } from "./terminalRecord.js";
import type { TaskAttachment } from "./taskAttachment.js";

export interface FinishOptions {
  /**
   * How long to wait for running children to record their end before refusing with
   * CHILDREN_RUNNING (default 30 s). A parent never records its end before its attached children.
   */
  childWaitMs?: number;
}

/** How often a finishing parent looks at its running children again. */
const CHILD_POLL_MS = 50;

/** Why prompts left pending by an earlier attach are denied. */
const RUN_GONE = "the run that asked is gone";

/** Whether an attachment runs the task, or only records an end it did not run to. */
export type AttachMode = "run" | "record";

export class Attachment implements TaskAttachment {
  readonly id: string;
  /** The immutable spec, prompt included. */
  readonly spec: TaskSpec;
  /** Where the executor puts the verified results, proxy.log and the cleaned guest log. */
  readonly resultsDir: string;
  /** 1 on the first run, 2 after one interruption, and so on. */
  readonly attempt: number;
  /** Why the task was suspended, when this attach runs on a suspended task. */
  readonly resumed: SuspendReason | undefined;
  readonly #ctx: StoreContext;
  readonly #paths: TaskPaths;
  readonly #lock: HeldLock;
  readonly #log: EventLog;
  #closed = false;
  /** One finish at a time: a second call while the first waits for children is refused. */
  #finishing = false;

  private constructor(
    ctx: StoreContext,
    paths: TaskPaths,
    spec: TaskSpec,
    lock: HeldLock,
    log: EventLog,
    attempt: number,
    resumed: SuspendReason | undefined,
  ) {
    this.#ctx = ctx;
    this.#paths = paths;
    this.id = paths.id;
    this.spec = spec;
    this.#lock = lock;
    this.#log = log;
    this.attempt = attempt;
    this.resumed = resumed;
    this.resultsDir = paths.results;
  }

  /**
   * Begins holding a task whose lock the caller has just taken. To run it: records the holder,
   * puts messages a dead executor took back to pending, and appends an `attached` event.
   */
  static async begin(
    ctx: StoreContext,
    paths: TaskPaths,
    spec: TaskSpec,
    lock: HeldLock,
    mode: AttachMode,
  ): Promise<Attachment> {
    const attempt = lock.holder?.attempt ?? 0;
    const log = EventLog.open(paths.events);
    let resumed: SuspendRecord | undefined;
    try {
      if (mode === "run") {
        const now = ctx.now();
        ensureRealDir(paths.results);
        await requeueInFlight(paths, ctx.hooks);
        // Prompts a dead executor left waiting were asked by a run that is gone.
        await expireApprovals(paths, RUN_GONE, now, ctx.hooks);
        // Running it again ends a suspension, and a request to suspend a run that is gone.
        resumed = clearSuspension(paths);
        log.appendStoreEvent(
          STORE_EVENTS.attached,
          definedFields({ attempt, pid: process.pid, host: ctx.host, resumed: resumed?.reason }),
          now,
        );
      }
    } catch (error) {
      log.close();
      throw error;
    }
    return new Attachment(ctx, paths, spec, lock, log, attempt, resumed?.reason);
  }

  /** The deadline, ms since the epoch. The executor must end the task by then. */
  get deadline(): number {
    return this.spec.deadline;
  }

  deadlinePassed(): boolean {
    return this.#ctx.now() >= this.spec.deadline;
  }

  /** The seq of the last event written. */
  get lastSeq(): number {
    return this.#log.lastSeq;
  }

  /** The id this task is shown as now: its shortest unique prefix in the store (see Tasks.shortIds). */
  async shortId(): Promise<string> {
    const all = await readTaskIds(this.#ctx.tasksDir);
    return uniquePrefix(this.id, all, STORE_LIMITS.shownIdChars);
  }

  /**
   * Appends `{"seq","at","type",...data}` to events.jsonl and returns its seq, or undefined when
   * the file reached 32 MiB and the event was dropped (one `log_full` notice says so).
   */
  appendEvent(type: string, data: Record<string, unknown> = {}): number | undefined {
    this.#open();
    return this.#log.append(type, data, this.#ctx.now());
  }

  /** Takes every pending message (now in_flight), oldest first. */
  async takeMessages(): Promise<InboxMessage[]> {
    this.#open();
    return takePending(this.#paths, this.#ctx.now(), this.#ctx.hooks);
  }

  /** Takes the oldest pending message (now in_flight), or undefined when none is pending. */
  async takeNextMessage(): Promise<InboxMessage | undefined> {
    this.#open();
    return takeOldestPending(this.#paths, this.#ctx.now(), this.#ctx.hooks);
  }

  /** One file of a message this attachment took, as it was sent (refused when it is not). */
  async messageFile(n: number, file: MessageFile): Promise<Buffer> {
    this.#open();
    return readMessageFile(this.#paths, n, file);
  }

  /**
   * Opens a permission prompt for a person (`warden approve`): the tool and one line of what
   * the call would do. Refuses a 9th waiting one (APPROVALS_BUSY) and a 257th (APPROVALS_FULL).
   */
  async askApproval(call: { tool: string; input: string }): Promise<ApprovalRequest> {
    this.#open();
    return openApproval(
      this.#paths,
      { ...call, attempt: this.attempt },
      this.#ctx.now(),
      this.#ctx.hooks,
    );
  }

  /**
   * Waits for prompt `n` to be answered; denies it itself at the timeout, or when the signal
   * aborts, unless an answer came first. Returns the request as it was settled.
   */
  async awaitApproval(n: number, options: AwaitApprovalOptions): Promise<ApprovalRequest> {
    this.#open();
    return awaitApproval(this.#paths, n, options, this.#ctx.now, this.#ctx.hooks);
  }

  /** Denies every prompt still waiting, because the run that asked them has ended. */
  async expireApprovals(reason: string): Promise<number> {
    this.#open();
    return expireApprovals(this.#paths, reason, this.#ctx.now(), this.#ctx.hooks);
  }

  /** A piece of a file the agent hands back with its reply to message `piece.n`. */
  async replyFilePiece(piece: ReplyFilePiece): Promise<void> {
    this.#open();
    await appendReplyPiece(this.#paths, piece);
  }

  /** Marks a taken message delivered, with a reply that is cut to 4 KiB. */
  async deliver(n: number, reply?: string): Promise<InboxMessage> {
    this.#open();
    return deliverMessage(this.#paths, n, reply, this.#ctx.now(), this.#ctx.hooks);
  }

  /** Whether someone asked to cancel the task: the `cancel` file exists. */
  cancelRequested(): boolean {
    return existsSync(this.#paths.cancel);
  }

  /** The environment protocol's variables for a command this task runs. */
  env(where: { metadataUrl?: string } = {}): Record<string, string> {
    return taskEnvironment(this.spec, { dataDir: this.#ctx.dataDir, ...where });
  }

  /**
   * Records how the task ended and releases the lock: appends a `finished` event, then writes
   * terminal.json atomically, under inbox.lock so that no message slips in after the end. Waits
   * (bounded) for running children first, since a parent never ends before them.
   */
  async finish(input: TerminalInput, options: FinishOptions = {}): Promise<TerminalRecord> {
    this.#open();
    const facts = { at: 0, lastSeq: 0, attempts: this.attempt, cancel: undefined };
    buildTerminal(input, facts); // Refuses bad input before anything is written.
    if (this.#finishing) throw new AttachmentClosedError(attachmentClosed(this.id));
    this.#finishing = true;
    try {
      return await this.#finish(input, options);
    } finally {
      this.#finishing = false;
    }
  }

  async #finish(input: TerminalInput, options: FinishOptions): Promise<TerminalRecord> {
    const giveUpAt = this.#ctx.now() + (options.childWaitMs ?? STORE_TIMING.childFinishWaitMs);
    for (;;) {
      const running = this.#runningChildren();
      if (running.length === 0) {
        const record = await withInboxLock(this.#paths, async () => {
          if (this.#runningChildren().length > 0) return undefined;
          const at = this.#ctx.now();
          const finished = definedFields({ state: input.state, stoppedBy: input.stoppedBy });
          this.#log.appendStoreEvent(STORE_EVENTS.finished, finished, at);
          const built = buildTerminal(input, {
            at,
            lastSeq: this.#log.lastSeq,
            attempts: this.attempt,
            cancel: readCancelSync(this.#paths),
          });
          await writeFileAtomic(
            this.#paths.terminal,
            JSON.stringify(built) + "\n",
            this.#ctx.hooks,
          );
          return built;
        });
        if (record !== undefined) {
          this.release();
          return record;
        }
      } else if (this.#ctx.now() >= giveUpAt) {
        throw new ChildrenRunningError(
          `task ${this.id} cannot record its end while its children ${running.join(", ")} still run`,
          { children: running },
        );
      }
      await sleep(CHILD_POLL_MS);
    }
  }

  /** A request to suspend the task, when someone made one (the `suspend` file). */
  suspendRequest(): SuspendRequest | undefined {
    return readSuspendRequestSync(this.#paths);
  }

  /**
   * Suspends the task and lets go of it: appends a `suspended` event, writes suspended.json,
   * then releases the lock, so the task reads `suspended` (never `interrupted`) once it is free.
   * Unlike finish it does not wait for running children: they keep their own executors and
   * deadlines, and the parent has not ended.
   */
  async suspend(input: {
    reason: SuspendRecord["reason"];
    resumeAt?: number;
    detail?: string;
  }): Promise<SuspendRecord> {
    this.#open();
    const at = this.#ctx.now();
    this.#log.appendStoreEvent(
      STORE_EVENTS.suspended,
      definedFields({ reason: input.reason, resumeAt: input.resumeAt }),
      at,
    );
    const record: SuspendRecord = definedFields({
      reason: input.reason,
      at,
      resumeAt: input.resumeAt,
      detail:
        input.detail === undefined
          ? undefined
          : cutText(input.detail, STORE_LIMITS.summaryBytes).text,
      lastSeq: this.#log.lastSeq,
    });
    await writeSuspended(this.#paths, record, this.#ctx.hooks);
    this.release();
    return record;
  }

  /** Lets go of the task without recording an end: it reads `interrupted` until attached again. */
  release(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#log.close();
    this.#lock.release();
  }

  get released(): boolean {
    return this.#closed;
  }

  #open(): void {
    if (this.#closed) throw new AttachmentClosedError(attachmentClosed(this.id));
  }

  #runningChildren(): string[] {
    return runningChildren(this.#ctx, this.#paths);
  }
}
