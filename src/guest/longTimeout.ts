// A timer for the agent's timeout, which may be 30 days: Node fires any setTimeout over
// 2^31 - 1 ms (about 24.8 days) at once, so a long wait is chained from shorter ones.

/** The longest delay setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `fire` after `ms`; returns a function that cancels it. */
export function setLongTimeout(ms: number, fire: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (left: number): void => {
    const step = Math.min(left, MAX_TIMER_MS);
    timer = setTimeout(() => {
      if (left > step) arm(left - step);
      else fire();
    }, step);
  };
  arm(Math.max(0, ms));
  return () => {
    clearTimeout(timer);
  };
}
