// A deadline as an AbortSignal that also carries the runner's own stop signal, so a step that
// waits on it ends for whichever comes first and learns which from the reason.

export interface Deadline {
  readonly signal: AbortSignal;
  /** Stops the timer; call it when the step is done so no timer outlives it. */
  clear(): void;
}

/** Aborts with `reason()` after `ms`, or with the stop signal's reason when that aborts first. */
export function startDeadline(ms: number, stop: AbortSignal, reason: () => Error): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(reason());
  }, ms);
  return {
    signal: AbortSignal.any([controller.signal, stop]),
    clear: () => {
      clearTimeout(timer);
    },
  };
}
