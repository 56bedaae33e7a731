// A promise's outcome as a value. Work started early and awaited later (two steps overlapped) is
// wrapped in it at once, so that its failure is never an unhandled rejection while the caller
// is still awaiting something else, and the caller chooses whose failure to report.

export type Settled<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

export async function settled<T>(work: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await work };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The value of a settled outcome, or its error thrown. */
export function unwrap<T>(outcome: Settled<T>): T {
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
