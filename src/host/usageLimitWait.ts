// What a usage limit of the model API means for the task (the relay reports each 429 that names
// its reset): a reset soon is left to the agent's own retries; one before the deadline suspends
// the task until then; one at or after the deadline ends it, since it could not run on in time.
// The first limit that is not left to the agent decides; the stop it asks for may be armed after
// it came, and then stops at once.
import type { UsageLimit } from "../egress/index.js";
import { HOST_LIMITS } from "./limits.js";

/** The event a watcher sees when the API says the task must wait: `resetAt`, `source`, `verdict`. */
export const USAGE_LIMIT_EVENT_TYPE = "usage_limit";

export type LimitVerdict =
  | { readonly kind: "retry" }
  | { readonly kind: "wait"; readonly resumeAt: number }
  | { readonly kind: "past_deadline"; readonly resetAt: number };

/** What a limit that resets at `resetAt` means for a task with `deadline`, seen at `now`. Pure. */
export function limitVerdict(resetAt: number, deadline: number, now: number): LimitVerdict {
  if (resetAt - now < HOST_LIMITS.usageLimitMinWaitMs) return { kind: "retry" };
  const resumeAt = resetAt + HOST_LIMITS.usageLimitMarginMs;
  if (resumeAt >= deadline) return { kind: "past_deadline", resetAt };
  return { kind: "wait", resumeAt };
}

/** The limit that decided, with its verdict. */
export interface DecidingLimit {
  readonly limit: UsageLimit;
  readonly verdict: Exclude<LimitVerdict, { kind: "retry" }>;
}

export class UsageLimitWait {
  #deciding: DecidingLimit | undefined;
  #stop: (() => void) | undefined;

  /** `tell` records and shows each limit that decides (once); `deadline` is the task's. */
  constructor(
    private readonly deadline: () => number,
    private readonly now: () => number,
    private readonly tell: (deciding: DecidingLimit) => void,
  ) {}

  report(limit: UsageLimit): void {
    if (this.#deciding !== undefined) return;
    const verdict = limitVerdict(limit.resetAt, this.deadline(), this.now());
    if (verdict.kind === "retry") return;
    this.#deciding = { limit, verdict };
    this.tell(this.#deciding);
    this.#stop?.();
  }

  arm(stop: () => void): void {
    this.#stop = stop;
    if (this.#deciding !== undefined) stop();
  }

  disarm(): void {
    this.#stop = undefined;
  }

  get deciding(): DecidingLimit | undefined {
    return this.#deciding;
  }
}
