// Why the host stops a running sandbox: a cancel request (the task's `cancel` file), the task's
// deadline, the host's own time limit, the host process itself being told to stop, or results
// the host refused, or a bound of the sandbox (memory, processes, disk) reached, or the model
// API failing for good (a refused key, nothing listening), or a spending cap reached (the relay's
// spend gate refused a request), or a request to suspend the task (at once, or at the agent's
// next turn boundary), or the API's usage limit. The first reason wins; it is reported once.
import { watch, type FSWatcher } from "node:fs";
import { HOST_LIMITS } from "./limits.js";

export type StopReason =
  | "cancel"
  | "deadline"
  | "host_timeout"
  | "interrupt"
  | "refused"
  | "bound"
  | "api"
  | "budget"
  | "suspend"
  | "usage_limit";

export interface StopTriggerOptions {
  /** The task's directory, watched for the `cancel` file. */
  dir: string;
  cancelRequested: () => boolean;
  /** Whether a request to suspend the task at once (not at a turn boundary) is there. */
  suspendNow?: () => boolean;
  /** ms since the epoch. */
  deadline: number;
  /** ms since the epoch; undefined for none. */
  hostLimitAt: number | undefined;
  now: () => number;
  /** Aborted when the host process is told to stop (SIGINT, SIGTERM). */
  signal?: AbortSignal;
  onStop: (reason: StopReason) => void;
}

/**
 * The reason due at `now`, if any. Pure: the cancel request first, then the bounds, then a
 * request to suspend at once (a task past its deadline ends rather than suspends).
 */
export function dueReason(facts: {
  cancelRequested: boolean;
  suspendNow?: boolean;
  now: number;
  deadline: number;
  hostLimitAt: number | undefined;
}): StopReason | undefined {
  if (facts.cancelRequested) return "cancel";
  if (facts.now >= facts.deadline) return "deadline";
  if (facts.hostLimitAt !== undefined && facts.now >= facts.hostLimitAt) return "host_timeout";
  if (facts.suspendNow === true) return "suspend";
  return undefined;
}

export class StopTriggers {
  #reason: StopReason | undefined;
  #watcher: FSWatcher | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #options: StopTriggerOptions;
  readonly #onAbort = (): void => {
    this.trigger("interrupt");
  };

  constructor(options: StopTriggerOptions) {
    this.#options = options;
    try {
      // Wakes at once on the cancel file; the poll below is the net for file systems without it.
      this.#watcher = watch(options.dir, { persistent: false }, () => {
        this.check();
      });
      this.#watcher.on("error", () => {
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch {
      this.#watcher = undefined;
    }
    this.#timer = setInterval(() => {
      this.check();
    }, HOST_LIMITS.stopPollMs);
    options.signal?.addEventListener("abort", this.#onAbort, { once: true });
    if (options.signal?.aborted === true) this.trigger("interrupt");
    this.check();
  }

  /** The reason the sandbox was stopped, once it was. */
  get reason(): StopReason | undefined {
    return this.#reason;
  }

  /** Looks at the cancel file and the clock now. */
  check(): void {
    if (this.#reason !== undefined) return;
    const reason = dueReason({
      cancelRequested: this.#options.cancelRequested(),
      suspendNow: this.#options.suspendNow?.() === true,
      now: this.#options.now(),
      deadline: this.#options.deadline,
      hostLimitAt: this.#options.hostLimitAt,
    });
    if (reason !== undefined) this.trigger(reason);
  }

  trigger(reason: StopReason): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.#options.onStop(reason);
  }

  close(): void {
    clearInterval(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#options.signal?.removeEventListener("abort", this.#onAbort);
  }
}
