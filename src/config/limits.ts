// The config files' bounds, each with the reason it has the value it has.

const KiB = 1024;

export const CONFIG_LIMITS = {
  /** A config file holds a few defaults; anything bigger is not one, and is not parsed. */
  fileBytes: 64 * KiB,
  /**
   * How much of a repository's `.git/config` (or a `.git` file) is read to find its working tree
   * without git; a bigger one (many remotes and branches) is left to git, which reads it whole.
   */
  gitFileBytes: 64 * KiB,
  /**
   * The most background runs a machine may run at once: more than this many agents, each with
   * its sandbox and a build, is a fleet's work, not one machine's.
   */
  maxRunning: 64,
  /** The most entries of one list (allow, presets, tool rules): a policy, not a data set. */
  listEntries: 256,
  /** The longest text value: a model name, a rule or a host, never a document. */
  textBytes: 1 * KiB,
} as const;
