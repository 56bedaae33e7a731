// The words of a thrown value. Anything may be thrown, so a catch holds an unknown; the caller
// decides whether the words need cleaning before a terminal shows them.

/** What `error` says: its message when it is an Error, else what String() makes of it. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
