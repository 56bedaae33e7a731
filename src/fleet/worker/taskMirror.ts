// While a fleet task runs on a worker, the local copy is the truth for the host's code and the
// fleet is what everyone else sees. The mirror carries each way what crosses:
//
// - local events to the fleet, in order and once each: one loop follows the local event log from
//   a cursor (the last local seq mirrored) and appends each to the fleet's stream; the store's
//   own types (attached, finished, ...) are skipped, the fleet's attach and finish write theirs.
// - the fleet's inbox to the local one (each message taken in the fleet, then sent locally), and
//   each local delivery (the reply) back to the fleet's message;
// - each local approval prompt to the fleet, and the fleet's answer back to the local prompt;
// - a fleet cancel request to a local cancel.
//
// Every fleet write is fenced by the lease: the first LEASE_LOST ends the mirror and tells the
// worker, which aborts the local run at once, so no sandbox goes on working for nobody.
import { setTimeout as sleep } from "node:timers/promises";
import { errorMessage } from "../../lang/index.js";
import { STORE_EVENTS, type Tasks, type TaskEvent } from "../../store/index.js";
import { LeaseLostError } from "../errors.js";
import type { FleetAttachment } from "../fleetAttachment.js";
import type { FleetStore } from "../fleetStore.js";
import { WORKER_LIMITS } from "../limits.js";

/** The store's own event types: the fleet's store writes its own, never a mirrored one. */
const STORE_TYPES: ReadonlySet<string> = new Set(Object.values(STORE_EVENTS));

export interface MirrorEnds {
  /** The fleet says the lease is gone: the local run must stop now. */
  leaseLost(error: LeaseLostError): void;
  /** Something could not be mirrored; the run goes on. */
  warn(text: string): void;
}

/** Pure: the fleet event of a local one, or undefined for the store's own types. */
export function fleetEventOf(
  event: TaskEvent,
): { type: string; data: Record<string, unknown> } | undefined {
  if (STORE_TYPES.has(event.type)) return undefined;
  const data: Record<string, unknown> = { ...event };
  delete data.seq;
  delete data.at;
  delete data.type;
  return { type: event.type, data };
}

export class TaskMirror {
  readonly #fleet: FleetStore;
  readonly #attachment: FleetAttachment;
  readonly #local: Tasks;
  readonly #ends: MirrorEnds;
  readonly #id: string;
  readonly #stopping = new AbortController();
  /** The last local event seq appended to the fleet. */
  #cursor = 0;
  /** Local message number to fleet message number, for each message sent in. */
  readonly #messages = new Map<number, number>();
  readonly #delivered = new Set<number>();
  /** Local approval number to fleet approval number, for each prompt mirrored out. */
  readonly #approvals = new Map<number, number>();
  #cancelled = false;
  #lost = false;
  #events: Promise<void> | undefined;
  #polls: Promise<void> | undefined;

  constructor(fleet: FleetStore, attachment: FleetAttachment, local: Tasks, ends: MirrorEnds) {
    this.#fleet = fleet;
    this.#attachment = attachment;
    this.#local = local;
    this.#ends = ends;
    this.#id = attachment.id;
  }

  start(): void {
    const signal = this.#stopping.signal;
    this.#events = this.#followEvents(signal);
    this.#polls = this.#poll(signal);
  }

  /** Stops the loops, then mirrors the local events the follower had not reached yet. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await this.#polls;
    await this.#events;
    if (this.#lost) return;
    for await (const event of this.#local.watch(this.#id, {
      since: this.#cursor,
      follow: false,
    })) {
      if (!(await this.#mirrorEvent(event))) return;
    }
  }

  async #followEvents(signal: AbortSignal): Promise<void> {
    try {
      for await (const event of this.#local.watch(this.#id, { since: this.#cursor, signal })) {
        if (!(await this.#mirrorEvent(event))) return;
      }
    } catch (error) {
      if (!signal.aborted)
        this.#ends.warn(`the task's events stopped mirroring: ${errorMessage(error)}`);
    }
  }

  /** Appends one local event to the fleet; false once the lease is lost. */
  async #mirrorEvent(event: TaskEvent): Promise<boolean> {
    if (event.seq <= this.#cursor) return true;
    const mirrored = fleetEventOf(event);
    try {
      if (mirrored !== undefined) await this.#attachment.appendEvent(mirrored.type, mirrored.data);
    } catch (error) {
      if (this.#lose(error)) return false;
      this.#ends.warn(
        `event ${event.seq} (${event.type}) was not mirrored: ${errorMessage(error)}`,
      );
    }
    this.#cursor = event.seq;
    return true;
  }

  async #poll(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && !this.#lost) {
      try {
        await this.#pollOnce();
      } catch (error) {
        if (this.#lose(error)) return;
        this.#ends.warn(`the task's inbox and prompts were not mirrored: ${errorMessage(error)}`);
      }
      await sleep(WORKER_LIMITS.mirrorPollMs, undefined, { signal }).catch(() => undefined);
    }
  }

  async #pollOnce(): Promise<void> {
    const id = this.#id;
    if (!this.#cancelled && (await this.#attachment.cancelRequested())) {
      this.#cancelled = true;
      await this.#local.cancel(id, { by: null });
    }
    // takeMessages checks the lease first: a lost lease is found here within one poll.
    for (const message of await this.#attachment.takeMessages()) {
      const sent = await this.#local.send(id, message.body, { from: null });
      this.#messages.set(sent.n, message.n);
    }
    for (const message of await this.#local.messages(id)) {
      const fleetN = this.#messages.get(message.n);
      if (fleetN === undefined || message.state !== "delivered" || this.#delivered.has(fleetN)) {
        continue;
      }
      await this.#attachment.deliver(fleetN, message.reply);
      this.#delivered.add(fleetN);
    }
    const local = await this.#local.approvals(id);
    for (const request of local) {
      if (request.state !== "pending" || this.#approvals.has(request.n)) continue;
      const asked = await this.#attachment.askApproval({
        tool: request.tool,
        input: request.input,
      });
      this.#approvals.set(request.n, asked.n);
    }
    if (this.#approvals.size === 0) return;
    const answers = new Map((await this.#fleet.approvals(id)).map((r) => [r.n, r]));
    for (const request of local) {
      const fleetN = this.#approvals.get(request.n);
      const answer = fleetN === undefined ? undefined : answers.get(fleetN);
      if (request.state !== "pending" || answer?.state !== "answered") continue;
      if (answer.decision === undefined) continue;
      await this.#local.approve(id, request.n, answer.decision, {
        by: null,
        ...(answer.reason === undefined ? {} : { reason: answer.reason }),
      });
    }
  }

  /** Whether `error` is the lease's loss; tells the worker once. */
  #lose(error: unknown): boolean {
    if (!(error instanceof LeaseLostError)) return false;
    if (!this.#lost) {
      this.#lost = true;
      this.#ends.leaseLost(error);
    }
    return true;
  }
}
