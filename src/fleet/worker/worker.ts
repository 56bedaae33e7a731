// `warden worker`'s loop: it takes an id from the fleet's work queue only while it has a free
// slot, leaves to other workers the tasks whose labels it lacks, leases and runs the others
// (workerTask.ts), runs the reaper now and then, and on stop takes nothing more and lets what it
// holds end within the grace, then hands the rest back.
import { setTimeout as sleep } from "node:timers/promises";
import { SandboxCheckMemo, WorkspaceMeter } from "../../host/index.js";
import { errorMessage } from "../../lang/index.js";
import {
  AlreadyAttachedError,
  DeadlinePassedError,
  StoreError,
  type Tasks,
} from "../../store/index.js";
import type { FleetStore } from "../fleetStore.js";
import { WORKER_LIMITS } from "../limits.js";
import type { QueuedTask } from "../queuedTask.js";
import { missingLabels, type Labels } from "./labels.js";
import { runWorkerTask, type TaskEnd } from "./workerTask.js";

/** What a worker tells of its work, one line each (the verb prints them). */
export type WorkerNews =
  | { event: "took"; id: string; attempt: number }
  | { event: "ended"; id: string; end: TaskEnd }
  | { event: "dropped"; id: string; why: string }
  | { event: "reaped"; id: string }
  | { event: "warning"; id?: string; text: string };

export interface WorkerSettings {
  fleet: FleetStore;
  local: Tasks;
  mirrorsDir: string;
  capacity: number;
  labels: Labels;
  maxBaseBytes: number;
  graceMs: number;
  reapEveryMs: number;
  env: Readonly<Record<string, string | undefined>>;
  tell(news: WorkerNews): void;
}

export class Worker {
  readonly #s: WorkerSettings;
  readonly #running = new Map<string, Promise<void>>();
  /** Aborted when the grace is over: every local run still going stops and is handed back. */
  readonly #handBack = new AbortController();
  readonly #stopping = new AbortController();
  /**
   * This machine's sandbox check, made by the first task and reused by the next ones for as long
   * as the memo trusts a pass (SANDBOX_LIMITS.checkReuseMs): a trial sandbox per task is a fifth
   * of a no-op task's time.
   */
  readonly #sandboxChecks = new SandboxCheckMemo();
  /** One meter for every running task's workspace: two du per poll, not two per task. */
  readonly #workspaceMeter = new WorkspaceMeter();

  constructor(settings: WorkerSettings) {
    this.#s = settings;
  }

  /** Works until stop() is called and everything it held has ended or been handed back. */
  async run(): Promise<void> {
    const reaping = this.#reap();
    const stopping = this.#stopping.signal;
    // One promise for the stop, made once: a listener added at every full-capacity wait would
    // pile up on the signal for the worker's whole life.
    const stopped = aborted(stopping);
    while (!stopping.aborted) {
      if (this.#running.size >= this.#s.capacity) {
        await Promise.race([...this.#running.values(), stopped]);
        continue;
      }
      let queued: QueuedTask | undefined;
      try {
        queued = await this.#s.fleet.takeQueued(WORKER_LIMITS.pullWaitMs);
      } catch (error) {
        this.#s.tell({ event: "warning", text: `the queue: ${errorMessage(error)}` });
        await sleep(WORKER_LIMITS.pullWaitMs, undefined, { signal: stopping }).catch(
          () => undefined,
        );
        continue;
      }
      if (queued === undefined) continue;
      // Read through a method: the signal may abort while the pull awaits.
      if (this.#stopped()) {
        queued.leave(0);
        break;
      }
      await this.#consider(queued).catch((error: unknown) => {
        queued.leave(0);
        this.#s.tell({ event: "warning", id: queued.id, text: errorMessage(error) });
      });
    }
    const all = Promise.all(this.#running.values());
    if (this.#s.graceMs > 0) {
      // The grace's timer is cancelled once everything has ended: a pending timer would keep
      // the process alive for the rest of the grace.
      const graceOver = new AbortController();
      await Promise.race([
        all,
        sleep(this.#s.graceMs, undefined, { signal: graceOver.signal }).catch(() => undefined),
      ]);
      graceOver.abort();
    }
    this.#handBack.abort();
    await all;
    await reaping;
  }

  #stopped(): boolean {
    return this.#stopping.signal.aborted;
  }

  /** Takes no more tasks; those it holds end within the grace or are handed back. */
  stop(): void {
    this.#stopping.abort();
    if (this.#s.graceMs <= 0) this.#handBack.abort();
  }

  /** Leaves the task to another worker, drops an id it cannot lease, or leases and runs it. */
  async #consider(queued: QueuedTask): Promise<void> {
    const { fleet } = this.#s;
    const id = queued.id;
    const { spec } = await fleet.get(id);
    if (missingLabels(spec.settings, this.#s.labels).length > 0) {
      queued.leave(WORKER_LIMITS.unlabelledRedeliverMs);
      return;
    }
    let attachment;
    try {
      attachment = await fleet.attach(id);
    } catch (error) {
      // Finished, run by another, or past its deadline (then recorded as such): a duplicate or
      // stale id, which goes from the queue.
      if (!(error instanceof StoreError || error instanceof AlreadyAttachedError)) throw error;
      await queued.done();
      const why = error instanceof DeadlinePassedError ? "its deadline passed" : error.message;
      this.#s.tell({ event: "dropped", id, why });
      return;
    }
    await queued.done();
    this.#s.tell({ event: "took", id, attempt: attachment.attempt });
    const running = runWorkerTask(
      {
        fleet,
        local: this.#s.local,
        mirrorsDir: this.#s.mirrorsDir,
        maxBaseBytes: this.#s.maxBaseBytes,
        env: this.#s.env,
        sandboxChecks: this.#sandboxChecks,
        workspaceMeter: this.#workspaceMeter,
        warn: (task, text) => {
          this.#s.tell({ event: "warning", id: task, text });
        },
      },
      attachment,
      this.#handBack.signal,
    )
      .then((end) => {
        this.#s.tell({ event: "ended", id, end });
      })
      .catch((error: unknown) => {
        this.#s.tell({ event: "warning", id, text: errorMessage(error) });
      })
      .finally(() => {
        this.#running.delete(id);
      });
    this.#running.set(id, running);
  }

  /** Every worker reaps: a dead worker's tasks are freed and queued again by whoever is alive. */
  async #reap(): Promise<void> {
    const stopping = this.#stopping.signal;
    while (!stopping.aborted) {
      try {
        for (const id of await this.#s.fleet.reap()) this.#s.tell({ event: "reaped", id });
      } catch (error) {
        this.#s.tell({ event: "warning", text: `the reaper: ${errorMessage(error)}` });
      }
      await sleep(this.#s.reapEveryMs, undefined, { signal: stopping }).catch(() => undefined);
    }
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else {
      signal.addEventListener(
        "abort",
        () => {
          resolve();
        },
        { once: true },
      );
    }
  });
}
