// The first failure of the API upstream in one attach that no retry can mend (a refused key,
// nothing listening): the relay reports every such request, and the first one is told to the
// user at once, recorded as an event, and ends the task; an agent would retry it for minutes.
import type { UpstreamFailure } from "../egress/index.js";

/** The event a watcher sees when the API upstream fails for good: `code`, `message`, `hint`. */
export const API_FAILURE_EVENT_TYPE = "api_failure";

/** What the terminal record keeps of the failure. */
export interface ApiFailureFacts {
  readonly code: string;
  /** Names the upstream as the host configured it, never the relay's address in the sandbox. */
  readonly message: string;
  readonly hint?: string;
}

export function apiFailureFacts(failure: UpstreamFailure): ApiFailureFacts {
  return {
    code: failure.code,
    message: failure.message,
    ...(failure.hint === undefined ? {} : { hint: failure.hint }),
  };
}

/**
 * Holds the first failure. The failure may come before the stop is armed (the relay listens
 * before the sandbox starts), so arming a stop after it stops at once.
 */
export class FirstApiFailure {
  #failure: ApiFailureFacts | undefined;
  #stop: (() => void) | undefined;

  /** `tell` shows and records the first failure; it runs once. */
  constructor(private readonly tell: (failure: ApiFailureFacts) => void) {}

  report(failure: UpstreamFailure): void {
    if (this.#failure !== undefined) return;
    this.#failure = apiFailureFacts(failure);
    this.tell(this.#failure);
    this.#stop?.();
  }

  /** `stop` ends the task; called now when a failure came already. */
  arm(stop: () => void): void {
    this.#stop = stop;
    if (this.#failure !== undefined) stop();
  }

  disarm(): void {
    this.#stop = undefined;
  }

  get failure(): ApiFailureFacts | undefined {
    return this.#failure;
  }
}
