// A deadline as an AbortSignal that also carries a stop signal, so a step that waits on it ends
// for whichever comes first and learns which from the reason. The timer holds the signal until it
// fires or is cleared: a signal of `AbortSignal.timeout` inside `AbortSignal.any` is held by
// nothing and can be collected before it fires in Node 20 (nodejs/node#57736), and then what
// waits on it is never stopped.

export interface Deadline {
  readonly signal: AbortSignal;
  /** Stops the timer; call it when the step is done so no timer outlives it. */
  readonly clear: () => void;
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
