// Tasks: the front door of the durable task store (exported as `warden/store`).
//
// A task is a directory under <data dir>/tasks/<id>/. Execution belongs to whichever process
// holds the task's attach.lock (flock(2): the kernel releases it when the holder dies). No verb
// leaves a process behind, and only attach (and the end-recording steps named below) take
// attach.lock. Costs are given in file operations; n is the number of tasks in the store.
//
//   Tasks.open({ dataDir?, env? })
//     Resolves the data dir (--data-dir, WARDEN_DATA_DIR, $XDG_DATA_HOME/warden,
//     ~/.local/share/warden) and creates it and tasks/, tmp/, waits/ (0700). No locks.
//   create(spec, { id? })
//     Checks the spec, resolves parent (the current task unless given; null for a root), hop and
//     deadline, builds the directory in tmp/ and renames it into tasks/: a task appears whole
//     or not at all, and an existing one is never rewritten (SPEC_IMMUTABLE). Adds an entry to
//     the parent's children/. No locks. A few small writes and fsyncs.
//   attach(id)
//     Takes attach.lock (non-blocking, retried for 150 ms so a reader's probe never looks like
//     an executor) and the parent's inbox.lock for a moment. Returns the Attachment that runs
//     the task; or records failed/deadline (DEADLINE_PASSED), or cancelled (TASK_FINISHED) when
//     the task is cancelled or its parent finished. ALREADY_ATTACHED names the holder's pid and
//     host. Reads the tail of events.jsonl to continue its seq.
//   get(id)
//     spec, prompt, derived state, terminal record, cancel request, children, message counts.
//     No locks; probes attach.lock with a shared flock held for microseconds. O(1).
//   list(filter?)
//     Every task, oldest first: one readdir, then per task spec.json, terminal.json or a probe
//     of attach.lock, and a stat of cancel. O(n) small reads, never a prompt.
//   watch(id, { since, signal, follow })
//     Async iterator of events after `since`, whole lines only, exactly once, in order; wakes
//     on fs.watch of the task directory (a poll as safety net). Ends once the task finished
//     and every event was yielded. No locks. Reads only new bytes.
//   messages(id)
//     The inbox, as it is. No locks: inbox.json is only ever replaced whole.
//   send(id, body, { from? })
//     Appends a message under inbox.lock (held for one read and one atomic write). Refused:
//     empty, over 256 KiB, not UTF-8 or with a NUL, the 17th, or to a finished or cancelling task.
//   cancel(id, { by? })
//     Policy (downward only), then a `cancel` file in the task and each unfinished descendant;
//     tasks nobody runs are recorded cancelled at once, deepest first, each under its
//     attach.lock taken for that moment. O(size of the subtree).
//   suspend(id, { now?, by? })
//     Policy (as cancel), then a `suspend` file in a running task: its executor stops the run at
//     the agent's next turn boundary (or at once with `now`), writes suspended.json and lets go.
//     Refused (NOT_SUSPENDABLE) when nobody runs it. The next attach removes both files.
//   holdResumeWait(id)
//     Takes resume.lock (non-blocking): held by the process that waits for a suspended task's
//     resume time, so that others (`warden serve`) resume only tasks nobody waits for.
//   wait(id, { timeoutMs, signal, by? })
//     Policy (wait edges), a cycle check between trees (waits/.lock, briefly), then waits on
//     fs.watch for terminal.json. A task nobody runs that is cancelled or past its deadline is
//     recorded on the spot (under its attach.lock), so a wait never hangs on an orphan.
//   remove(id, { recursive? })
//     Takes attach.lock (refusing a running task), renames the directory out, deletes it.
//   waitReply(id, n, { timeoutMs, signal })
//     Waits until message n is delivered (its reply), the task ends without delivering it, or
//     the timeout. fs.watch of the task directory, reads of inbox.json and terminal.json. No locks.
//   approvals(id)
//     The permission prompts put to a person, and their answers. No locks.
//   approve(id, n, decision, { by?, reason? })
//     Policy (a person outside any task, or an ancestor; never the task itself), then answers
//     pending request n under approvals.lock (one read, one atomic write). Refused: unknown,
//     already answered, or the task has finished.
//   gc({ olderThan })
//     Removes tasks finished longer ago than the age (never a task with a child it keeps), and
//     what dead creators and removals left in tmp/. O(n).
import { hostname } from "node:os";
import { acquireLock, probeLock, readCurrentHolder, type HeldLock } from "./attachLock.js";
import { holderText } from "./lockHolder.js";
import { Attachment } from "./attachment.js";
import type { StoreHooks } from "./atomicFile.js";
import { cancelTask, type CancelOutcome } from "./cancelTask.js";
import { StoreContext, type Env } from "./context.js";
import { createTask, type CreateOptions } from "./createTask.js";
import { prepareDataDir, resolveDataDir, type DataDirChoice } from "./dataDir.js";
import { currentTask, type CurrentTask } from "./envProtocol.js";
import {
  AlreadyAttachedError,
  approveRefused,
  DeadlinePassedError,
  hasFinished,
  TaskFinishedError,
} from "./errors.js";
import type { TaskEvent } from "./eventLog.js";
import { appendMessage, readInbox, type InboxMessage } from "./inbox.js";
import type { MessageFileInput } from "./messageFiles.js";
import {
  answerApproval,
  readApprovals,
  type ApprovalDecision,
  type ApprovalRequest,
} from "./approvals.js";
import { awaitReply, type AwaitReplyOptions, type ReplyOutcome } from "./awaitReply.js";
import { askerLineage } from "./lineage.js";
import { approveDecision } from "./policy.js";
import { readFullSpec, readSpec, readTerminal } from "./readTask.js";
import { STORE_LIMITS } from "./limits.js";
import { readTaskIds, resolveTaskId } from "./resolveId.js";
import { shortIds } from "./shortIds.js";
import {
  collectGarbage,
  removeTask,
  type GcOptions,
  type GcOutcome,
  type RemoveOptions,
} from "./removeTask.js";
import { parentHasFinished, recordSettlement, settlementFor } from "./settle.js";
import type { TaskSpecInput } from "./specInput.js";
import {
  listSummaries,
  summarize,
  taskDetails,
  type ListFilter,
  type TaskDetails,
  type TaskSummary,
} from "./summary.js";
import { suspendTask, type SuspendOutcome } from "./suspendTask.js";
import { IdGenerator } from "./taskId.js";
import { waitTask, type WaitOptions, type WaitOutcome } from "./waitTask.js";
import { watchEvents, type WatchOptions } from "./watchEvents.js";
import type { TaskStore } from "./taskStore.js";

export interface OpenOptions {
  /** The --data-dir value; wins over the environment. */
  dataDir?: string;
  /** The environment to read WARDEN_* and XDG_DATA_HOME from (default process.env). */
  env?: Env;
  /** Points where tests stop a write half way, to show what a crash leaves. */
  hooks?: StoreHooks;
  /** The clock (ms since the epoch); tests of deadlines may pass their own. */
  now?: () => number;
}

export interface SendOptions {
  /** The sending task (default: the one this process runs in); null for outside any task. */
  from?: string | null;
  /** Files that go with the message into the workspace (messageFiles.ts has their bounds). */
  files?: readonly MessageFileInput[];
}

export interface ApproveOptions {
  /** The answering task (default: the one this process runs in); null for outside any task. */
  by?: string | null;
  /** Told to the agent with the answer. */
  reason?: string;
}

export interface CancelOptions {
  /** The task that cancels (default: the one this process runs in); null for outside any task. */
  by?: string | null;
}

export interface SuspendOptions {
  /** Stop at once rather than at the agent's next turn boundary. */
  now?: boolean;
  /** The task that asks (default: the one this process runs in); null for outside any task. */
  by?: string | null;
}

export class Tasks implements TaskStore {
  readonly #ctx: StoreContext;
  /** Where the data directory came from. */
  readonly dataDirSource: DataDirChoice["source"];

  private constructor(ctx: StoreContext, source: DataDirChoice["source"]) {
    this.#ctx = ctx;
    this.dataDirSource = source;
  }

  static async open(options: OpenOptions = {}): Promise<Tasks> {
    const env = options.env ?? process.env;
    const choice = resolveDataDir(options.dataDir, env);
    await prepareDataDir(choice.path);
    const now = options.now ?? Date.now;
    const ctx = new StoreContext(
      choice.path,
      env,
      options.hooks ?? {},
      new IdGenerator(now),
      hostname(),
      now,
    );
    return new Tasks(ctx, choice.source);
  }

  get dataDir(): string {
    return this.#ctx.dataDir;
  }

  /** The task this process runs in, from the environment protocol, or undefined. */
  get current(): CurrentTask | undefined {
    return currentTask(this.#ctx.env);
  }

  /** Resolves an id, a unique prefix of 4 or more characters, `@last` or `@last-N`. */
  async resolve(ref: string): Promise<string> {
    return resolveTaskId(this.#ctx.tasksDir, ref);
  }

  /**
   * The id each of `ids` is shown as: the shortest prefix unique among the store's tasks now,
   * at least STORE_LIMITS.shownIdChars long. Keyed by id.
   */
  async shortIds(ids: readonly string[]): Promise<Map<string, string>> {
    const all = await readTaskIds(this.#ctx.tasksDir);
    return shortIds(ids, all, STORE_LIMITS.shownIdChars);
  }

  /** The id `id` is shown as; see shortIds. */
  async shortId(id: string): Promise<string> {
    return (await this.shortIds([id])).get(id) ?? id;
  }

  async create(spec: TaskSpecInput, options: CreateOptions = {}): Promise<TaskSummary> {
    const stored = await createTask(this.#ctx, spec, options);
    return summarize(this.#ctx.paths(stored.id), stored);
  }

  async attach(ref: string): Promise<Attachment> {
    const ctx = this.#ctx;
    const paths = ctx.paths(await this.resolve(ref));
    const spec = await readFullSpec(paths);
    const lock = await acquireLock(paths.attachLock, { holder: ctx.holder("run") });
    if (lock === undefined) {
      const holder = await readCurrentHolder(paths.attachLock);
      throw new AlreadyAttachedError(`task ${paths.id} is ${holderText(holder)}`);
    }
    try {
      const terminal = await readTerminal(paths);
      if (terminal !== undefined) {
        throw new TaskFinishedError(hasFinished(paths.id, terminal, "it cannot run again"), {
          terminal,
        });
      }
      const parentFinished =
        spec.parent !== null && (await parentHasFinished(ctx, spec.parent, spec.createdAt));
      const settlement = settlementFor(paths, spec, ctx.now(), parentFinished);
      if (settlement !== undefined) {
        const record = await recordSettlement(ctx, paths, spec, lock, settlement);
        if (settlement.kind === "deadline") {
          throw new DeadlinePassedError(
            `task ${paths.id} is past its deadline, so it was recorded as failed instead of run again`,
            { terminal: record },
          );
        }
        throw new TaskFinishedError(hasFinished(paths.id, record, "it was not run"), {
          terminal: record,
        });
      }
      return await Attachment.begin(ctx, paths, spec, lock, "run");
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  async get(ref: string): Promise<TaskDetails> {
    return taskDetails(this.#ctx, this.#ctx.paths(await this.resolve(ref)));
  }

  async list(filter: ListFilter = {}): Promise<TaskSummary[]> {
    return listSummaries(this.#ctx, filter);
  }

  /** See WatchOptions. The id is resolved when iteration begins. */
  async *watch(ref: string, options: WatchOptions = {}): AsyncGenerator<TaskEvent> {
    const paths = this.#ctx.paths(await this.resolve(ref));
    yield* watchEvents(paths, options);
  }

  async messages(ref: string): Promise<InboxMessage[]> {
    return readInbox(this.#ctx.paths(await this.resolve(ref)));
  }

  /** `body` is text, or bytes that must be UTF-8 (MESSAGE_NOT_TEXT otherwise). */
  async send(
    ref: string,
    body: string | Uint8Array,
    options: SendOptions = {},
  ): Promise<InboxMessage> {
    const paths = this.#ctx.paths(await this.resolve(ref));
    const from = options.from === undefined ? (this.current?.id ?? null) : options.from;
    return appendMessage(paths, body, from, this.#ctx.now(), this.#ctx.hooks, options.files);
  }

  /** See AwaitReplyOptions. */
  async waitReply(ref: string, n: number, options: AwaitReplyOptions = {}): Promise<ReplyOutcome> {
    const paths = this.#ctx.paths(await this.resolve(ref));
    return awaitReply(paths, n, options, this.#ctx.now);
  }

  async approvals(ref: string): Promise<ApprovalRequest[]> {
    return readApprovals(this.#ctx.paths(await this.resolve(ref)));
  }

  async approve(
    ref: string,
    n: number,
    decision: ApprovalDecision,
    options: ApproveOptions = {},
  ): Promise<ApprovalRequest> {
    const paths = this.#ctx.paths(await this.resolve(ref));
    const by = this.#by(options.by);
    const target = await readSpec(paths);
    const verdict = approveDecision(await askerLineage(this.#ctx, by), target);
    if (!verdict.allowed) {
      throw approveRefused(by, paths.id, verdict.edge);
    }
    return answerApproval(
      paths,
      n,
      {
        decision,
        answeredBy: "person",
        by,
        reason: options.reason,
      },
      this.#ctx.now(),
      this.#ctx.hooks,
    );
  }

  async cancel(ref: string, options: CancelOptions = {}): Promise<CancelOutcome> {
    const id = await this.resolve(ref);
    return cancelTask(this.#ctx, id, this.#by(options.by));
  }

  async suspend(ref: string, options: SuspendOptions = {}): Promise<SuspendOutcome> {
    const id = await this.resolve(ref);
    return suspendTask(this.#ctx, id, this.#by(options.by), options.now === true);
  }

  /**
   * Takes resume.lock, which says a process waits to resume the task at its resume time (so
   * `warden serve` leaves it to that process); undefined when another process holds it.
   */
  async holdResumeWait(ref: string): Promise<HeldLock | undefined> {
    return acquireLock(this.#ctx.paths(await this.resolve(ref)).resumeLock);
  }

  /**
   * Takes start.lock, which says this process is starting the task (it has not attached yet);
   * undefined when another process holds it, which is starting it too.
   */
  async holdStarting(ref: string): Promise<HeldLock | undefined> {
    return acquireLock(this.#ctx.paths(await this.resolve(ref)).startLock);
  }

  /** Whether a process holds start.lock: it is starting the task and will attach or fail. */
  async isBeingStarted(ref: string): Promise<boolean> {
    return probeLock(this.#ctx.paths(await this.resolve(ref)).startLock) === "held";
  }

  async wait(ref: string, options: WaitOptions = {}): Promise<WaitOutcome> {
    const id = await this.resolve(ref);
    return waitTask(this.#ctx, id, this.#by(options.by), options);
  }

  async remove(ref: string, options: RemoveOptions = {}): Promise<string[]> {
    return removeTask(this.#ctx, await this.resolve(ref), options);
  }

  async gc(options: GcOptions = {}): Promise<GcOutcome> {
    return collectGarbage(this.#ctx, options);
  }

  #by(by: string | null | undefined): string | null {
    return by === undefined ? (this.current?.id ?? null) : by;
  }
}
