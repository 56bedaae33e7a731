// The short form of a task id that warden shows: the shortest prefix that no other task in the
// store shares, but never shorter than a floor. Ids are time-ordered, so tasks made within about
// a second share their first eight characters; a fixed cut would show the same id for both.
// Pure: the caller reads the store's ids and passes them in.

/** How many leading characters `a` and `b` share. */
function sharedLength(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let n = 0;
  while (n < most && a[n] === b[n]) n++;
  return n;
}

/**
 * The shown id of each of `ids`, keyed by id. A shown id is a prefix of its id that no other id
 * in `allIds` (or in `ids`) starts with, of at least `floor` characters and at most the whole id.
 * In sorted order the id that shares the longest prefix with a given one is its neighbour, so one
 * sort and a look at both neighbours is enough.
 */
export function shortIds(
  ids: readonly string[],
  allIds: readonly string[],
  floor: number,
): Map<string, string> {
  const sorted = [...new Set([...allIds, ...ids])].sort();
  const position = new Map(sorted.map((id, i) => [id, i]));
  const out = new Map<string, string>();
  for (const id of ids) {
    const i = position.get(id) ?? 0;
    const before = sorted[i - 1];
    const after = sorted[i + 1];
    const shared = Math.max(
      before === undefined ? 0 : sharedLength(id, before),
      after === undefined ? 0 : sharedLength(id, after),
    );
    out.set(id, id.slice(0, Math.max(floor, shared + 1)));
  }
  return out;
}

/** The shown id of one id among `allIds`; see shortIds. */
export function uniquePrefix(id: string, allIds: readonly string[], floor: number): string {
  return shortIds([id], allIds, floor).get(id) ?? id;
}
