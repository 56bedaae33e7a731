// FleetStore: the task store of a fleet, on NATS JetStream (layout.ts says which piece holds
// what and why). It keeps the filesystem store's rules by the same pure functions (planSpec,
// settlementOf, the policies, checkBody, planApproval, applyAnswer, buildTerminal); where the
// filesystem store takes a lock, this store does one compare-and-set on a revision.
import { hostname } from "node:os";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { ObjectStore } from "@nats-io/obj";
import type { Authenticator, NatsConnection } from "@nats-io/transport-node";
import {
  AlreadyAttachedError,
  alreadyExists,
  applyAnswer,
  approveRefused,
  cancelRefused,
  waitRefused,
  approveDecision,
  BadTaskIdError,
  cancelDecision,
  checkBody,
  checkSpecInput,
  currentTask,
  hasFinished,
  IdGenerator,
  InboxFullError,
  noSuchTask,
  notATaskId,
  planSpec,
  resolveAmong,
  rootOf,
  SpecImmutableError,
  STORE_LIMITS,
  StoreCorruptError,
  TaskCancellingError,
  TaskFinishedError,
  TaskNotFoundError,
  waitDecision,
  isTaskId,
  summaryOf,
  type DerivedState,
  type ActingAs,
  type ApprovalDecision,
  type ApprovalRequest,
  type CancelOutcome,
  type CreateOptions,
  type CurrentTask,
  type InboxMessage,
  type Lineage,
  type ListFilter,
  type StoreApproveOptions,
  type StoredSpec,
  type StoreSendOptions,
  type TaskDetails,
  type TaskEvent,
  type TaskSpecInput,
  type TaskStore,
  type TaskSummary,
  type WaitOptions,
  type WaitOutcome,
  type WatchOptions,
} from "../store/index.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { FleetContext } from "./context.js";
import {
  allIds,
  childrenOf,
  ENTRY_KINDS,
  fullSpecOf,
  promptObject,
  runOf,
  specOf,
  readApprovalList,
  readMessageList,
  readSpecEntry,
  updateEntry,
} from "./entries.js";
import { cancelTree, markCancel } from "./cancelTree.js";
import { watchTask } from "./eventStream.js";
import type { FleetAttachment } from "./fleetAttachment.js";
import { beginAttachment, settleIfIdle, takeLease } from "./leases.js";
import { QueuedTask } from "./queuedTask.js";
import { dropWaitEdge, registerWaitEdge, type WaitEdgeEntry } from "./waitEdges.js";
import { KEYS, openLayout, QUEUE_CONSUMER } from "./layout.js";
import { connectFleet } from "./fleetConnection.js";
import { outlasting } from "./streamReads.js";
import { FLEET_LIMITS, FLEET_TIMING } from "./limits.js";
import {
  changeRun,
  encode,
  holderOf,
  isWrongRevision,
  leaseLive,
  newRunRecord,
  readRun,
  runState,
  type RunRecord,
} from "./runRecord.js";

/** Pure: how long an id whose spec is missing waits after its `pulls`-th pull (1 and up). */
export function specWaitMs(pulls: number): number {
  const doubled = FLEET_TIMING.queueSpecFirstWaitMs * 2 ** Math.min(Math.max(pulls - 1, 0), 30);
  return Math.min(FLEET_TIMING.queueSpecWaitMs, doubled);
}

export interface FleetOpenOptions {
  /** The NATS server(s), e.g. nats://127.0.0.1:4222. */
  servers: string | string[];
  /** Names the buckets and streams, so that several stores may share a server. */
  prefix?: string;
  /** The environment to read WARDEN_* from (default process.env). */
  env?: Record<string, string | undefined>;
  /** The clock (ms since the epoch). */
  now?: () => number;
  /** A lease's life without a heartbeat, and the heartbeat (FLEET_TIMING by default). */
  leaseTtlMs?: number;
  heartbeatMs?: number;
  /**
   * How many servers of a JetStream cluster keep the store's bucket, object store and streams
   * when this open creates them (1, 3 or 5; default 1, for a single server).
   */
  replicas?: number;
  /** Who this client is to the server (fleetConnection.ts makes one from credentials). */
  authenticator?: Authenticator;
  /** The connection's name, as the server's monitoring shows it. */
  name?: string;
}

export class FleetStore implements TaskStore {
  readonly #nc: NatsConnection;
  readonly #ctx: FleetContext;
  readonly #ids: IdGenerator;
  readonly #env: Record<string, string | undefined>;

  private constructor(
    nc: NatsConnection,
    ctx: FleetContext,
    env: Record<string, string | undefined>,
  ) {
    this.#nc = nc;
    this.#ctx = ctx;
    this.#ids = new IdGenerator(ctx.now);
    this.#env = env;
  }

  static async open(options: FleetOpenOptions): Promise<FleetStore> {
    const nc = await connectFleet(options);
    try {
      const js = jetstream(nc);
      const jsm = await jetstreamManager(nc);
      const layout = await openLayout(
        js,
        jsm,
        options.prefix ?? "warden",
        options.replicas ?? FLEET_LIMITS.defaultReplicas,
      );
      const ctx: FleetContext = {
        nc,
        js,
        jsm,
        layout,
        now: options.now ?? Date.now,
        host: hostname(),
        leaseTtlMs: options.leaseTtlMs ?? FLEET_TIMING.leaseTtlMs,
        heartbeatMs: options.heartbeatMs ?? FLEET_TIMING.heartbeatMs,
      };
      return new FleetStore(nc, ctx, options.env ?? process.env);
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  /** The server (host:port) this store is connected to now; it changes when one is lost. */
  get server(): string {
    return this.#nc.getServer();
  }

  /** Closes the connection; leases this process holds stop beating and expire. */
  async close(): Promise<void> {
    await this.#nc.drain();
  }

  /** A new task id, for a creator that must name the task before it exists (submitTask). */
  newId(): string {
    return this.#ids.next();
  }

  /** The fleet's object store: base bundles and results (taskObjects.ts). */
  get objects(): ObjectStore {
    return this.#ctx.layout.objects;
  }

  get current(): CurrentTask | undefined {
    return currentTask(this.#env);
  }

  async resolve(ref: string): Promise<string> {
    return resolveAmong(
      {
        all: () => allIds(this.#ctx),
        exists: async (id) => (await readSpecEntry(this.#ctx, id)) !== undefined,
      },
      ref,
    );
  }

  /**
   * Claims the id by creating its run record (KV create fails on an existing key), writes the
   * prompt to the object store and the child entry, then creates the spec: a task is listed
   * once its spec exists, and then it is whole.
   */
  async create(value: TaskSpecInput, options: CreateOptions = {}): Promise<TaskSummary> {
    const ctx = this.#ctx;
    const input = checkSpecInput(value);
    const now = ctx.now();
    const current = this.current;
    const id = options.id ?? this.#ids.next();
    if (!isTaskId(id)) throw new BadTaskIdError(notATaskId(id, "it is not a ULID in lowercase"));
    if ((await readSpecEntry(ctx, id)) !== undefined) {
      throw new SpecImmutableError(alreadyExists(id));
    }
    const parentId = input.parent === null ? null : (input.parent ?? current?.id ?? null);
    let parent: StoredSpec | undefined;
    let parentRun: RunRecord | undefined;
    if (parentId !== null) {
      parent = await readSpecEntry(ctx, parentId);
      parentRun = (await readRun(ctx.layout.kv, parentId))?.run;
      if (parent === undefined || parentRun === undefined) {
        throw new TaskNotFoundError(noSuchTask(parentId, "parent task"));
      }
    }
    const spec = planSpec(input, {
      id,
      now,
      parent,
      parentFinished: parentRun?.terminal !== undefined,
      parentCancelling: parentRun?.cancel !== undefined,
      currentHop:
        parent !== undefined || current === undefined
          ? undefined
          : ((await readSpecEntry(ctx, current.id))?.hop ?? current.hop),
      continuation: options.continuation === true,
    });
    await options.beforeWrite?.();
    try {
      await ctx.layout.kv.create(KEYS.run(id), encode(newRunRecord()));
    } catch (error) {
      if (isWrongRevision(error)) throw new SpecImmutableError(alreadyExists(id));
      throw error;
    }
    await ctx.layout.objects.putBlob({ name: promptObject(id) }, Buffer.from(input.prompt));
    if (parent !== undefined) await ctx.layout.kv.put(KEYS.child(parent.id, id), encode(""));
    // Queued before the spec exists, so a creator that dies between the two leaves an id the
    // queue drops (see nextToRun), never a task that is listed but never run.
    // Asked again through an election (no responders: nothing was stored); a second copy of
    // the id on the queue would be harmless, a worker drops an id it cannot lease.
    await outlasting(() => ctx.js.publish(ctx.layout.names.queueSubject, id));
    await ctx.layout.kv.create(KEYS.spec(id), encode(spec));
    // A cancel of the parent that walked its children before this entry existed: this task
    // takes the parent's request itself.
    if (parent !== undefined) {
      const request = (await readRun(ctx.layout.kv, parent.id))?.run.cancel;
      if (request !== undefined) await markCancel(this.#ctx, id, request);
    }
    return this.#summary(spec, newRunRecord());
  }

  async attach(ref: string): Promise<FleetAttachment> {
    const id = await this.resolve(ref);
    const spec = await fullSpecOf(this.#ctx, id);
    const taken = await takeLease(this.#ctx, spec, "run", "attach");
    // Only a quiet take leaves a task alone; an attach's take leases it or refuses.
    if (taken === undefined) throw new AlreadyAttachedError(`task ${id} could not be leased`);
    return beginAttachment(this.#ctx, spec, taken);
  }

  async get(ref: string): Promise<TaskDetails> {
    const ctx = this.#ctx;
    const id = await this.resolve(ref);
    const spec = await fullSpecOf(this.#ctx, id);
    const run = await runOf(this.#ctx, id);
    const messages = { pending: 0, in_flight: 0, delivered: 0 };
    for (const m of await readMessageList(ctx, id)) messages[m.state]++;
    const approvals = { pending: 0, answered: 0 };
    for (const r of await readApprovalList(ctx, id)) approvals[r.state]++;
    const details: TaskDetails = {
      ...this.#summary(spec, run),
      spec,
      children: await childrenOf(ctx, id),
      messages,
      approvals,
    };
    if (run.terminal !== undefined) details.terminal = run.terminal;
    if (run.cancel !== undefined) details.cancel = run.cancel;
    return details;
  }

  async list(filter: ListFilter = {}): Promise<TaskSummary[]> {
    const out: TaskSummary[] = [];
    for (const id of await allIds(this.#ctx)) {
      const known = filter.known?.get(id);
      let summary = known;
      if (summary === undefined) {
        summary = await this.#listed(id);
        if (summary === undefined) continue;
      }
      if (filter.parent !== undefined && summary.parent !== filter.parent) continue;
      if (filter.states !== undefined && !filter.states.includes(summary.state)) continue;
      out.push(summary);
    }
    return out;
  }

  /**
   * An ordered consumer of the task's subject: events after `since`, in order, once each; ends
   * once the terminal record exists and its last event was yielded (or at the end, unfollowed).
   */
  async *watch(ref: string, options: WatchOptions = {}): AsyncGenerator<TaskEvent> {
    yield* watchTask(this.#ctx, await this.resolve(ref), options);
  }

  async messages(ref: string): Promise<InboxMessage[]> {
    return readMessageList(this.#ctx, await this.resolve(ref));
  }

  /**
   * Counts the message in the run record by compare-and-set (refused once the task has its
   * terminal record or a cancel request, or had its 16), then writes it under its number.
   */
  async send(
    ref: string,
    body: string | Uint8Array,
    options: StoreSendOptions = {},
  ): Promise<InboxMessage> {
    const ctx = this.#ctx;
    const id = await this.resolve(ref);
    const text = checkBody(body);
    const from = options.from === undefined ? (this.current?.id ?? null) : options.from;
    // The sender is kept in the message entry, whose shape names a task id or nobody.
    if (from !== null && !isTaskId(from)) {
      throw new BadTaskIdError(notATaskId(from, "the sender is not a task id"));
    }
    const n = await changeRun(ctx.layout.kv, id, (run) => {
      if (run.terminal !== undefined) {
        throw new TaskFinishedError(hasFinished(id, run.terminal, "it takes no more messages"), {
          terminal: run.terminal,
        });
      }
      if (run.cancel !== undefined) {
        throw new TaskCancellingError(
          `task ${id} is being cancelled, so it takes no more messages`,
        );
      }
      if (run.messages >= STORE_LIMITS.inboxMessages) {
        throw new InboxFullError(`task ${id} has had its ${STORE_LIMITS.inboxMessages} messages`);
      }
      return { write: { ...run, messages: run.messages + 1 }, result: run.messages + 1 };
    });
    const message: InboxMessage = { n, from, at: ctx.now(), body: text, state: "pending" };
    await ctx.layout.kv.create(KEYS.message(id, n), encode(message));
    return message;
  }

  async approvals(ref: string): Promise<ApprovalRequest[]> {
    return readApprovalList(this.#ctx, await this.resolve(ref));
  }

  async approve(
    ref: string,
    n: number,
    decision: ApprovalDecision,
    options: StoreApproveOptions = {},
  ): Promise<ApprovalRequest> {
    const ctx = this.#ctx;
    const id = await this.resolve(ref);
    const by = this.#by(options.by);
    const target = await specOf(this.#ctx, id);
    const verdict = approveDecision(await this.#lineage(by), target);
    if (!verdict.allowed) {
      throw approveRefused(by, id, verdict.edge);
    }
    const terminal = (await runOf(this.#ctx, id)).terminal;
    const answer = { decision, answeredBy: "person" as const, by, reason: options.reason };
    const answered = await updateEntry(
      ctx,
      ENTRY_KINDS.approval,
      KEYS.approval(id, n),
      (request: ApprovalRequest) => applyAnswer(id, [request], n, answer, ctx.now(), terminal),
    );
    // A missing entry is refused by applyAnswer as an unknown number.
    return answered ?? applyAnswer(id, [], n, answer, ctx.now(), terminal);
  }

  /** Downward only: marks the task and its unfinished descendants; ends those nobody runs. */
  async cancel(ref: string, options: ActingAs = {}): Promise<CancelOutcome> {
    const id = await this.resolve(ref);
    const by = this.#by(options.by);
    const target = await specOf(this.#ctx, id);
    const decision = cancelDecision(await this.#lineage(by), target);
    if (!decision.allowed) {
      throw cancelRefused(by, id, decision.edge);
    }
    const done = (await runOf(this.#ctx, id)).terminal;
    if (done !== undefined) return { id, marked: [], recorded: [], finished: done };
    return { id, ...(await cancelTree(this.#ctx, id, { by, at: this.#ctx.now(), target: id })) };
  }

  async wait(ref: string, options: WaitOptions = {}): Promise<WaitOutcome> {
    const ctx = this.#ctx;
    const id = await this.resolve(ref);
    const target = await specOf(this.#ctx, id);
    const by = this.#by(options.by);
    const asker = await this.#lineage(by);
    const decision = waitDecision(asker, target);
    if (!decision.allowed) {
      throw waitRefused(by, id, decision.edge);
    }
    const { signal } = options;
    signal?.throwIfAborted();
    const giveUpAt = ctx.now() + (options.timeoutMs ?? Infinity);
    let edge: WaitEdgeEntry | undefined;
    if (asker !== undefined && decision.edge === "independent_root") {
      edge = await registerWaitEdge(
        this.#ctx,
        rootOf(asker),
        target.id,
        Math.min(giveUpAt, target.deadline),
      );
    }
    try {
      for (;;) {
        const terminal = (await runOf(this.#ctx, id)).terminal;
        if (terminal !== undefined) return { kind: "finished", terminal };
        signal?.throwIfAborted();
        if (await settleIfIdle(this.#ctx, id)) continue;
        const now = ctx.now();
        if (now >= giveUpAt) return { kind: "timed_out" };
        await sleep(Math.min(FLEET_TIMING.waitPollMs, giveUpAt - now), undefined, { signal });
      }
    } finally {
      if (edge !== undefined) await dropWaitEdge(this.#ctx, edge);
    }
  }

  /**
   * The next task to run from the work queue, or undefined when none came within `waitMs`,
   * taken off the queue at once (takeQueued leaves that to its caller). Each id goes to one
   * caller; a task whose taker died before attaching it stays `created` in its run record.
   */
  async nextToRun(waitMs: number): Promise<string | undefined> {
    const queued = await this.takeQueued(waitMs);
    if (queued === undefined) return undefined;
    await queued.done();
    return queued.id;
  }

  /**
   * The next id on the work queue, left unacknowledged until the caller settles it (a worker
   * acknowledges it once it holds the task's lease, or leaves it to a worker with the labels it
   * lacks). Undefined when none came within `waitMs`. The creator queues the id just before it
   * writes the spec, so an id whose spec is not there yet is put back for a moment, and dropped
   * once its creator has had FLEET_LIMITS.queueSpecWaits such moments: it died. Ids that name no
   * task of this store's making, and damaged tasks (`get` of one says why), are dropped.
   */
  async takeQueued(waitMs: number): Promise<QueuedTask | undefined> {
    const ctx = this.#ctx;
    const giveUpAt = Date.now() + waitMs;
    const consumer = await ctx.js.consumers.get(ctx.layout.names.queueStream, QUEUE_CONSUMER);
    for (;;) {
      const left = giveUpAt - Date.now();
      if (left <= 0) return undefined;
      const message = await consumer.next({
        expires: Math.max(left, FLEET_TIMING.queueShortestPullMs),
      });
      if (message === null) return undefined;
      const id = message.string();
      if (!isTaskId(id)) {
        await message.ackAck();
        continue;
      }
      const spec = await readSpecEntry(ctx, id).catch((error: unknown) => {
        if (error instanceof StoreCorruptError) return null;
        throw error;
      });
      if (spec === undefined && message.info.deliveryCount < FLEET_LIMITS.queueSpecWaits) {
        message.nak(specWaitMs(message.info.deliveryCount));
        continue;
      }
      if (spec !== undefined && spec !== null) return new QueuedTask(id, message);
      await message.ackAck();
    }
  }

  /**
   * Puts a task back on the work queue: one handed back by its worker, or freed by the reaper.
   * A task queued twice is harmless: a worker drops an id whose task it cannot lease.
   */
  async requeue(id: string): Promise<void> {
    await this.#ctx.js.publish(this.#ctx.layout.names.queueSubject, id);
  }

  /**
   * Frees every lease whose holder stopped beating: the reaper. Attach also takes an expired
   * lease on its own, so reaping is what makes such a task read `interrupted` at once and lets
   * a waiter record the end a dead holder never wrote, and puts each freed task back on the work
   * queue for another worker. Returns the ids it freed.
   */
  async reap(): Promise<string[]> {
    const freed: string[] = [];
    for (const id of await allIds(this.#ctx)) {
      const did = await changeRun(this.#ctx.layout.kv, id, (run) => {
        if (run.lease === undefined || run.terminal !== undefined)
          return { keep: true, result: false };
        if (leaseLive(run.lease, this.#ctx.now(), this.#ctx.leaseTtlMs))
          return { keep: true, result: false };
        const next = { ...run };
        delete next.lease;
        return { write: next, result: true };
      });
      if (did) freed.push(id);
    }
    // Only the reaper whose compare-and-set freed a lease queues its task again, so one expiry
    // queues the task once however many workers reap.
    for (const id of freed) await this.requeue(id);
    return freed;
  }

  /**
   * One task's summary for the list, or undefined when it is half made or damaged: as on the
   * filesystem, a damaged task is left out of the list so that it never hides the others, and
   * `get` of it says STORE_CORRUPT.
   */
  async #listed(id: string): Promise<TaskSummary | undefined> {
    try {
      const spec = await readSpecEntry(this.#ctx, id);
      const run = (await readRun(this.#ctx.layout.kv, id))?.run;
      if (spec === undefined || run === undefined) return undefined;
      return this.#summary(spec, run);
    } catch (error) {
      if (error instanceof StoreCorruptError) return undefined;
      throw error;
    }
  }

  #summary(spec: StoredSpec, run: RunRecord): TaskSummary {
    const state = runState(run, this.#ctx.now(), this.#ctx.leaseTtlMs);
    const derived: DerivedState = { state };
    if (run.terminal !== undefined) derived.terminal = run.terminal;
    if (state === "running" && run.lease !== undefined) derived.holder = holderOf(run.lease);
    return summaryOf(spec, derived, run.cancel !== undefined);
  }

  async #lineage(by: string | null): Promise<Lineage | undefined> {
    if (by === null) return undefined;
    // The asker's id comes from the caller or the environment: it is checked before it names a key.
    if (!isTaskId(by)) throw new BadTaskIdError(notATaskId(by, "it is not a task id"));
    const spec = await readSpecEntry(this.#ctx, by);
    if (spec === undefined) {
      throw new TaskNotFoundError(
        noSuchTask(by, "task (the one asking, from WARDEN_TASK_ID or `by`)"),
      );
    }
    return { id: spec.id, ancestors: spec.ancestors };
  }

  #by(by: string | null | undefined): string | null {
    return by === undefined ? (this.current?.id ?? null) : by;
  }
}
