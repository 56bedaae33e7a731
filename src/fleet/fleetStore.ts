// FleetStore: the task store of a fleet, on NATS JetStream (layout.ts says which piece holds
// what and why). It keeps the filesystem store's rules by the same pure functions (planSpec,
// settlementOf, the policies, checkBody, planApproval, applyAnswer, buildTerminal); where the
// filesystem store takes a lock, this store does one compare-and-set on a revision.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import {
  AlreadyAttachedError,
  alreadyExists,
  applyAnswer,
  approveDecision,
  ApproveNotAllowedError,
  BadTaskIdError,
  CancelNotAllowedError,
  cancelDecision,
  checkBody,
  checkSpecInput,
  closesCycle,
  currentTask,
  DeadlinePassedError,
  hasFinished,
  IdGenerator,
  InboxFullError,
  noSuchTask,
  notATaskId,
  planSpec,
  relationText,
  resolveAmong,
  rootOf,
  settlementOf,
  SpecImmutableError,
  STORE_EVENTS,
  STORE_LIMITS,
  TaskCancellingError,
  TaskFinishedError,
  TaskNotFoundError,
  WaitCycleError,
  waitDecision,
  WaitNotAllowedError,
  isTaskId,
  type ActingAs,
  type Settlement,
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
  type TaskSpec,
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
  childrenOf,
  keysOf,
  readApprovalList,
  readMessageList,
  readSpecEntry,
  runningChildren,
  updateEntry,
} from "./entries.js";
import { EventAppender, eventPuller } from "./eventStream.js";
import { FleetAttachment } from "./fleetAttachment.js";
import { KEYS, openLayout, QUEUE_CONSUMER } from "./layout.js";
import { FLEET_TIMING } from "./limits.js";
import {
  changeRun,
  encode,
  holderOf,
  isWrongRevision,
  leaseLive,
  newRunRecord,
  readRun,
  runState,
  type Lease,
  type RunRecord,
} from "./runRecord.js";

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
}

/** A wait edge between two trees, kept until the wait ends or, at the latest, `until`. */
interface WaitEdgeEntry {
  from: string;
  to: string;
  until: number;
  token: string;
}

type Settle = "attach" | "quiet";

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
    const nc = await connect({ servers: options.servers });
    try {
      const js = jetstream(nc);
      const jsm = await jetstreamManager(nc);
      const layout = await openLayout(js, jsm, options.prefix ?? "warden");
      const ctx: FleetContext = {
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

  /** Closes the connection; leases this process holds stop beating and expire. */
  async close(): Promise<void> {
    await this.#nc.drain();
  }

  get current(): CurrentTask | undefined {
    return currentTask(this.#env);
  }

  async resolve(ref: string): Promise<string> {
    return resolveAmong(
      {
        all: () => this.#allIds(),
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
    await ctx.layout.kv.create(KEYS.spec(id), encode(spec));
    // A cancel of the parent that walked its children before this entry existed: this task
    // takes the parent's request itself.
    if (parent !== undefined) {
      const request = (await readRun(ctx.layout.kv, parent.id))?.run.cancel;
      if (request !== undefined) await this.#markCancel(id, request);
    }
    await ctx.js.publish(ctx.layout.names.queueSubject, id);
    return this.#summary(spec, newRunRecord());
  }

  async attach(ref: string): Promise<FleetAttachment> {
    const id = await this.resolve(ref);
    const spec = await this.#fullSpec(id);
    const taken = await this.#takeLease(spec, "run", "attach");
    // Only a quiet take leaves a task alone; an attach's take leases it or refuses.
    if (taken === undefined) throw new AlreadyAttachedError(`task ${id} could not be leased`);
    return this.#begin(spec, taken);
  }

  async get(ref: string): Promise<TaskDetails> {
    const ctx = this.#ctx;
    const id = await this.resolve(ref);
    const spec = await this.#fullSpec(id);
    const run = await this.#run(id);
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
    for (const id of await this.#allIds()) {
      const known = filter.known?.get(id);
      let summary = known;
      if (summary === undefined) {
        const spec = await readSpecEntry(this.#ctx, id);
        const run = (await readRun(this.#ctx.layout.kv, id))?.run;
        if (spec === undefined || run === undefined) continue;
        summary = this.#summary(spec, run);
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
    const ctx = this.#ctx;
    const id = await this.resolve(ref);
    const { names } = ctx.layout;
    const puller = await eventPuller(ctx.js, names.eventsStream, names.eventsSubject(id));
    let last = options.since ?? 0;
    try {
      for (;;) {
        if (options.signal?.aborted === true) return;
        const got = await puller.pull(FLEET_TIMING.watchPullMs);
        if (got !== null) {
          if (got.event.seq > last) {
            last = got.event.seq;
            yield got.event;
          }
          if (got.pending > 0) continue;
        }
        const terminal = (await readRun(ctx.layout.kv, id))?.run.terminal;
        if (terminal !== undefined && last >= terminal.lastSeq) return;
        if (options.follow === false && (got === null || got.pending === 0)) return;
      }
    } finally {
      await puller.close();
    }
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
    const target = await this.#spec(id);
    const verdict = approveDecision(await this.#lineage(by), target);
    if (!verdict.allowed) {
      throw new ApproveNotAllowedError(
        `task ${by ?? ""} may not answer the approval requests of ${id}: it is ${relationText(verdict.edge)}`,
        { edge: verdict.edge },
      );
    }
    const terminal = (await this.#run(id)).terminal;
    const answer = { decision, answeredBy: "person" as const, by, reason: options.reason };
    const answered = await updateEntry(ctx, KEYS.approval(id, n), (request: ApprovalRequest) =>
      applyAnswer(id, [request], n, answer, ctx.now(), terminal),
    );
    // A missing entry is refused by applyAnswer as an unknown number.
    return answered ?? applyAnswer(id, [], n, answer, ctx.now(), terminal);
  }

  /** Downward only: marks the task and its unfinished descendants; ends those nobody runs. */
  async cancel(ref: string, options: ActingAs = {}): Promise<CancelOutcome> {
    const id = await this.resolve(ref);
    const by = this.#by(options.by);
    const target = await this.#spec(id);
    const decision = cancelDecision(await this.#lineage(by), target);
    if (!decision.allowed) {
      throw new CancelNotAllowedError(
        `task ${by ?? ""} may not cancel ${id}: it is ${relationText(decision.edge)}`,
        { edge: decision.edge },
      );
    }
    const done = (await this.#run(id)).terminal;
    if (done !== undefined) return { id, marked: [], recorded: [], finished: done };
    const request = { by, at: this.#ctx.now(), target: id };
    const visited: string[] = [];
    const marked: string[] = [];
    const queue = [id];
    while (queue.length > 0) {
      const next = queue.shift() ?? "";
      if ((await this.#run(next)).terminal === undefined) {
        visited.push(next);
        if (await this.#markCancel(next, request)) marked.push(next);
      }
      queue.push(...(await childrenOf(this.#ctx, next)));
    }
    const recorded: string[] = [];
    for (const next of visited.reverse()) {
      if (await this.#settleIfIdle(next)) recorded.push(next);
    }
    return { id, marked, recorded };
  }

  async wait(ref: string, options: WaitOptions = {}): Promise<WaitOutcome> {
    const ctx = this.#ctx;
    const id = await this.resolve(ref);
    const target = await this.#spec(id);
    const by = this.#by(options.by);
    const asker = await this.#lineage(by);
    const decision = waitDecision(asker, target);
    if (!decision.allowed) {
      throw new WaitNotAllowedError(
        `task ${by ?? ""} may not wait on ${id}: it is ${relationText(decision.edge)}`,
        {
          edge: decision.edge,
          ...(decision.edge === "not_a_root"
            ? { hint: "wait on the root of that tree instead" }
            : {}),
        },
      );
    }
    const { signal } = options;
    signal?.throwIfAborted();
    const giveUpAt = ctx.now() + (options.timeoutMs ?? Infinity);
    let edge: WaitEdgeEntry | undefined;
    if (asker !== undefined && decision.edge === "independent_root") {
      edge = await this.#registerEdge(
        rootOf(asker),
        target.id,
        Math.min(giveUpAt, target.deadline),
      );
    }
    try {
      for (;;) {
        const terminal = (await this.#run(id)).terminal;
        if (terminal !== undefined) return { kind: "finished", terminal };
        signal?.throwIfAborted();
        if (await this.#settleIfIdle(id)) continue;
        const now = ctx.now();
        if (now >= giveUpAt) return { kind: "timed_out" };
        await sleep(Math.min(FLEET_TIMING.waitPollMs, giveUpAt - now), undefined, { signal });
      }
    } finally {
      if (edge !== undefined) await this.#dropEdge(edge);
    }
  }

  /**
   * The next task to run from the work queue, or undefined when none came within `waitMs`.
   * Each id goes to one caller; a task whose taker died before attaching it stays `created` in
   * its run record, where a reaper of the queue can find it.
   */
  async nextToRun(waitMs: number): Promise<string | undefined> {
    const ctx = this.#ctx;
    const consumer = await ctx.js.consumers.get(ctx.layout.names.queueStream, QUEUE_CONSUMER);
    for (;;) {
      const message = await consumer.next({ expires: waitMs });
      if (message === null) return undefined;
      await message.ackAck();
      const id = message.string();
      // Anything else on the subject is not a task of this store's making; it is dropped.
      if (isTaskId(id) && (await readSpecEntry(ctx, id)) !== undefined) return id;
    }
  }

  /**
   * Frees every lease whose holder stopped beating: the reaper. Attach also takes an expired
   * lease on its own, so reaping is what makes such a task read `interrupted` at once and lets
   * a waiter record the end a dead holder never wrote. Returns the ids it freed.
   */
  async reap(): Promise<string[]> {
    const freed: string[] = [];
    for (const id of await this.#allIds()) {
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
    return freed;
  }

  /**
   * Takes the lease by compare-and-set, or refuses: finished, held by a live holder, or due to
   * end (then, as the filesystem store does, the end is recorded and the attach refused).
   */
  async #takeLease(
    spec: TaskSpec,
    purpose: Lease["purpose"],
    settle: Settle,
  ): Promise<{ lease: Lease } | undefined> {
    const ctx = this.#ctx;
    const id = spec.id;
    const parentFinished = await this.#parentFinished(spec);
    const outcome = await changeRun<{ lease: Lease; due: Settlement | undefined } | undefined>(
      ctx.layout.kv,
      id,
      (run) => {
        const now = ctx.now();
        if (run.terminal !== undefined) {
          if (settle === "quiet") return { keep: true, result: undefined };
          throw new TaskFinishedError(hasFinished(id, run.terminal, "it cannot run again"), {
            terminal: run.terminal,
          });
        }
        if (leaseLive(run.lease, now, ctx.leaseTtlMs)) {
          if (settle === "quiet") return { keep: true, result: undefined };
          const holder =
            run.lease === undefined
              ? "running"
              : `running (attempt ${run.lease.attempt} on ${run.lease.host}, pid ${run.lease.pid})`;
          throw new AlreadyAttachedError(`task ${id} is ${holder}`);
        }
        const due = settlementOf({
          cancelled: run.cancel !== undefined,
          deadline: spec.deadline,
          now,
          parentFinished,
        });
        if (purpose === "run" && due === undefined) {
          const lease: Lease = {
            attempt: run.attempts + 1,
            purpose,
            pid: process.pid,
            host: ctx.host,
            startedAt: now,
            beatAt: now,
          };
          return { write: { ...run, attempts: lease.attempt, lease }, result: { lease, due } };
        }
        if (due === undefined) return { keep: true, result: undefined };
        const lease: Lease = {
          attempt: run.attempts,
          purpose: "record",
          pid: process.pid,
          host: ctx.host,
          startedAt: now,
          beatAt: now,
        };
        return { write: { ...run, lease }, result: { lease, due } };
      },
    );
    if (outcome === undefined) return undefined;
    if (outcome.due === undefined) return { lease: outcome.lease };
    const record = await (
      await this.#begin(spec, { lease: outcome.lease })
    ).finish(outcome.due.input);
    if (settle === "quiet") return undefined;
    if (outcome.due.kind === "deadline") {
      throw new DeadlinePassedError(
        `task ${id} is past its deadline, so it was recorded as failed instead of run again`,
        { terminal: record },
      );
    }
    throw new TaskFinishedError(hasFinished(id, record, "it was not run"), { terminal: record });
  }

  /** Opens the event appender for a taken lease; to run: requeues taken messages, denies prompts. */
  async #begin(spec: TaskSpec, taken: { lease: Lease }): Promise<FleetAttachment> {
    const ctx = this.#ctx;
    const { names } = ctx.layout;
    const events = await EventAppender.open(
      ctx.js,
      ctx.jsm,
      names.eventsStream,
      names.eventsSubject(spec.id),
    );
    const attachment = new FleetAttachment(ctx, spec, taken.lease, events);
    if (taken.lease.purpose === "run") {
      for (const m of await readMessageList(ctx, spec.id)) {
        if (m.state !== "in_flight") continue;
        await updateEntry(
          ctx,
          KEYS.message(spec.id, m.n),
          (now: InboxMessage): InboxMessage | undefined => {
            if (now.state !== "in_flight") return undefined;
            const back: InboxMessage = { ...now, state: "pending" };
            delete back.takenAt;
            return back;
          },
        );
      }
      for (const r of await readApprovalList(ctx, spec.id)) {
        if (r.state !== "pending") continue;
        await updateEntry(ctx, KEYS.approval(spec.id, r.n), (now: ApprovalRequest) =>
          now.state === "pending"
            ? applyAnswer(
                spec.id,
                [now],
                now.n,
                { decision: "deny", answeredBy: "ended", reason: "the run that asked is gone" },
                ctx.now(),
                undefined,
              )
            : undefined,
        );
      }
      await events.append(
        STORE_EVENTS.attached,
        { attempt: taken.lease.attempt, pid: process.pid, host: ctx.host },
        ctx.now(),
      );
    }
    return attachment;
  }

  /** Records the end of a task nobody runs that must end; says whether it did. */
  async #settleIfIdle(id: string): Promise<boolean> {
    const spec = await this.#fullSpec(id);
    if ((await runningChildren(this.#ctx, id)).length > 0) return false;
    try {
      await this.#takeLease(spec, "record", "quiet");
    } catch (error) {
      if (error instanceof AlreadyAttachedError) return false;
      throw error;
    }
    return (await this.#run(id)).terminal !== undefined;
  }

  async #markCancel(
    id: string,
    request: { by: string | null; at: number; target: string },
  ): Promise<boolean> {
    return changeRun(this.#ctx.layout.kv, id, (run) =>
      run.cancel !== undefined || run.terminal !== undefined
        ? { keep: true, result: false }
        : { write: { ...run, cancel: request }, result: true },
    );
  }

  /** Adds a wait edge between trees by compare-and-set on `waits`, refusing one that cycles. */
  async #registerEdge(from: string, to: string, until: number): Promise<WaitEdgeEntry> {
    const kv = this.#ctx.layout.kv;
    const edge: WaitEdgeEntry = { from, to, until, token: randomBytes(8).toString("hex") };
    for (let i = 0; i < FLEET_TIMING.casAttempts; i++) {
      const entry = await kv.get(KEYS.waits);
      const now = this.#ctx.now();
      const edges = (entry?.operation === "PUT" ? entry.json<WaitEdgeEntry[]>() : []).filter(
        (e) => e.until > now,
      );
      if (
        closesCycle(
          edges.map((e) => [e.from, e.to] as const),
          from,
          to,
        )
      ) {
        throw new WaitCycleError(
          `waiting on ${to} from the tree of ${from} would close a cycle of waits`,
        );
      }
      try {
        if (entry === null) await kv.create(KEYS.waits, encode([...edges, edge]));
        else await kv.update(KEYS.waits, encode([...edges, edge]), entry.revision);
        return edge;
      } catch (error) {
        if (!isWrongRevision(error)) throw error;
      }
    }
    throw new WaitCycleError("the wait edges kept changing under this wait");
  }

  async #dropEdge(edge: WaitEdgeEntry): Promise<void> {
    await updateEntry(this.#ctx, KEYS.waits, (edges: WaitEdgeEntry[]) =>
      edges.filter((e) => e.token !== edge.token),
    );
  }

  async #parentFinished(spec: StoredSpec): Promise<boolean> {
    if (spec.parent === null) return false;
    const parent = (await readRun(this.#ctx.layout.kv, spec.parent))?.run;
    if (parent === undefined) return true;
    return parent.terminal !== undefined && parent.terminal.at >= spec.createdAt;
  }

  #summary(spec: StoredSpec, run: RunRecord): TaskSummary {
    const summary: TaskSummary = {
      id: spec.id,
      state: runState(run, this.#ctx.now(), this.#ctx.leaseTtlMs),
      createdAt: spec.createdAt,
      deadline: spec.deadline,
      parent: spec.parent,
      root: spec.ancestors[0] ?? spec.id,
      hop: spec.hop,
      labels: spec.labels,
      title: spec.title,
      cancelRequested: run.cancel !== undefined,
      settings: spec.settings,
    };
    if (spec.repo !== undefined) summary.repo = spec.repo;
    const terminal = run.terminal;
    if (terminal !== undefined) {
      summary.finishedAt = terminal.at;
      if (terminal.details !== undefined) summary.details = terminal.details;
      if (terminal.stoppedBy !== undefined) summary.stoppedBy = terminal.stoppedBy;
      if (terminal.summary !== undefined) {
        summary.summary = terminal.summary;
        summary.summaryCut = terminal.summaryCut ?? false;
      }
    } else if (run.lease !== undefined && summary.state === "running") {
      summary.holder = holderOf(run.lease);
    }
    return summary;
  }

  async #allIds(): Promise<string[]> {
    return (await keysOf(this.#ctx, "spec.*"))
      .map((key) => key.slice("spec.".length))
      .filter(isTaskId)
      .sort();
  }

  async #spec(id: string): Promise<StoredSpec> {
    const spec = await readSpecEntry(this.#ctx, id);
    if (spec === undefined) throw new TaskNotFoundError(noSuchTask(id));
    return spec;
  }

  async #fullSpec(id: string): Promise<TaskSpec> {
    const spec = await this.#spec(id);
    const prompt = await this.#ctx.layout.objects.getBlob(promptObject(id));
    if (prompt === null) throw new TaskNotFoundError(noSuchTask(id));
    return { ...spec, prompt: Buffer.from(prompt).toString("utf8") };
  }

  async #run(id: string): Promise<RunRecord> {
    const read = await readRun(this.#ctx.layout.kv, id);
    if (read === undefined) throw new TaskNotFoundError(noSuchTask(id));
    return read.run;
  }

  async #lineage(by: string | null): Promise<Lineage | undefined> {
    if (by === null) return undefined;
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

function promptObject(id: string): string {
  return `prompt/${id}`;
}
