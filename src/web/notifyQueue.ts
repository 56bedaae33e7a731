// One target of notifications (a command or a webhook): a queue that sends them in order, at
// most a burst at once and then a steady rate, tries each again after waits that grow, and never
// holds anyone up: a task never waits on a notification, and a slow target only fills its own
// queue, whose oldest entries are dropped and counted in the next one sent.
import { spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { startDeadline } from "../lang/index.js";
import { WEB_LIMITS } from "./limits.js";
import type { Notification } from "./notifyEvents.js";

/** Sends one notification's JSON; throws when it failed. `retry` false: trying again is futile. */
export type Deliver = (json: string, signal: AbortSignal) => Promise<void>;

export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retry: boolean,
  ) {
    super(message);
  }
}

export interface NotifyTiming {
  readonly burst: number;
  readonly perMinute: number;
  readonly attempts: number;
  readonly backoffMs: number;
  readonly timeoutMs: number;
  readonly queue: number;
}

export const NOTIFY_TIMING: NotifyTiming = {
  burst: WEB_LIMITS.notifyBurst,
  perMinute: WEB_LIMITS.notifyPerMinute,
  attempts: WEB_LIMITS.notifyAttempts,
  backoffMs: WEB_LIMITS.notifyBackoffMs,
  timeoutMs: WEB_LIMITS.notifyTimeoutMs,
  queue: WEB_LIMITS.notifyQueue,
};

/** Runs `sh -c COMMAND` with the notification's JSON on stdin; a non-zero exit is a failure. */
export function commandDelivery(command: string): Deliver {
  return (json, signal) =>
    new Promise((resolve, reject) => {
      const child = spawn("sh", ["-c", command], {
        stdio: ["pipe", "ignore", "ignore"],
        signal,
        killSignal: "SIGKILL",
      });
      child.on("error", (error) => {
        const why = signal.aborted ? "did not finish in time and was stopped" : error.message;
        reject(new DeliveryError(`the notify command ${why}`, true));
      });
      child.on("close", (code, killed) => {
        if (code === 0) resolve();
        else {
          const why = killed === null ? `exited ${String(code)}` : `was stopped (${killed})`;
          reject(new DeliveryError(`the notify command ${why}`, true));
        }
      });
      child.stdin.on("error", () => undefined);
      child.stdin.end(json + "\n");
    });
}

/** POSTs the JSON; a 2xx answer is delivered, a 429 or 5xx or no answer is tried again. */
export function webhookDelivery(url: string): Deliver {
  return async (json, signal) => {
    let status: number;
    try {
      const answer = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: json,
        signal,
        redirect: "error",
      });
      await answer.body?.cancel();
      status = answer.status;
    } catch (error) {
      throw new DeliveryError(
        `the webhook could not be reached: ${(error as Error).message}`,
        true,
      );
    }
    if (status >= 200 && status < 300) return;
    throw new DeliveryError(`the webhook answered ${status}`, status === 429 || status >= 500);
  };
}

export class NotifyQueue {
  readonly #deliver: Deliver;
  readonly #timing: NotifyTiming;
  readonly #onProblem: (message: string) => void;
  readonly #queue: Notification[] = [];
  readonly #stop = new AbortController();
  #dropped = 0;
  #tokens: number;
  #refilledAt = Date.now();
  #running: Promise<void> | undefined;

  constructor(deliver: Deliver, onProblem: (message: string) => void, timing = NOTIFY_TIMING) {
    this.#deliver = deliver;
    this.#timing = timing;
    this.#onProblem = onProblem;
    this.#tokens = timing.burst;
  }

  push(notification: Notification): void {
    if (this.#stop.signal.aborted) return;
    this.#queue.push(notification);
    while (this.#queue.length > this.#timing.queue) {
      this.#queue.shift();
      this.#dropped++;
    }
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
  }

  /** Waits for the rate to allow one more; false once stopped. */
  async #token(): Promise<boolean> {
    for (;;) {
      const now = Date.now();
      const perMs = this.#timing.perMinute / 60_000;
      this.#tokens = Math.min(this.#timing.burst, this.#tokens + (now - this.#refilledAt) * perMs);
      this.#refilledAt = now;
      if (this.#tokens >= 1) {
        this.#tokens -= 1;
        return true;
      }
      const waited = await sleep(Math.ceil((1 - this.#tokens) / perMs), true, {
        signal: this.#stop.signal,
      }).catch(() => false);
      if (!waited) return false;
    }
  }

  async #drain(): Promise<void> {
    for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
      if (!(await this.#token())) return;
      const dropped = this.#dropped;
      this.#dropped = 0;
      const json = JSON.stringify(dropped === 0 ? next : { ...next, dropped });
      await this.#send(json);
    }
  }

  async #send(json: string): Promise<void> {
    let wait = this.#timing.backoffMs;
    for (let attempt = 1; ; attempt++) {
      const deadline = startDeadline(
        this.#timing.timeoutMs,
        this.#stop.signal,
        () => new Error(`no answer in ${this.#timing.timeoutMs} ms`),
      );
      try {
        await this.#deliver(json, deadline.signal).finally(deadline.clear);
        return;
      } catch (error) {
        if (this.#stop.signal.aborted) return;
        const retry = !(error instanceof DeliveryError) || error.retry;
        const message = error instanceof Error ? error.message : String(error);
        if (!retry || attempt >= this.#timing.attempts) {
          this.#onProblem(`${message}; the notification is dropped after ${attempt} tries`);
          return;
        }
        const slept = await sleep(wait, true, { signal: this.#stop.signal }).catch(() => false);
        if (!slept) return;
        wait *= 4;
      }
    }
  }

  /** Stops sending: what waits is dropped, what is being sent is stopped. */
  async close(): Promise<void> {
    this.#stop.abort();
    await this.#running;
  }
}
