// The bounds of the setup cache on the host's side; the snapshot's own are SETUP_LIMITS.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const KiB = 1024;

export const SETUP_CACHE_LIMITS = {
  /** entry.json: a digest, a size and two times; more is not one warden wrote. */
  entryBytes: 4 * KiB,
  /**
   * A temporary directory of an entry being stored that is older than this was left by a host
   * that died mid-store (storing takes seconds): gc removes it.
   */
  staleTemporaryMs: 60 * MINUTE,
  /** Paths and globs a setup's key may name: the lockfiles of a repository, not its tree. */
  keyPatterns: 64,
  /** The tree entries that go into a key: past this the key patterns match source, not locks. */
  keyEntries: 10_000,
} as const;
