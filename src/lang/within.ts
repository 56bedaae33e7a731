// Waiting no longer than a bound for something that may never come (a peer that does not
// answer, a process that does not exit); the timer never outlives the wait.

/** Resolves with `promise`, or with undefined once `ms` have passed. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
