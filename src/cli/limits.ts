// The CLI's own limits, each with its reason. The limits of what tasks hold live in the store's
// and the protocol's limits files.

export const CLI_LIMITS = {
  /**
   * The fewest characters of a title `ls` keeps when it fits rows to the terminal: fewer could
   * not tell tasks apart, so a terminal narrower than the other columns plus this wraps instead.
   */
  lsTitleMinColumns: 12,
  /**
   * What a failed task's tail shows of the agent's stderr: its last lines, read from at most the
   * file's last bytes, each line cut. Enough for a stack trace's end or an error message; the
   * whole file is one `warden logs --agent-log` away.
   */
  failureTailLines: 12,
  failureTailBytes: 16 * 1024,
  failureTailLineBytes: 300,
  /** The events a failed task's tail shows: the last few say what the host and runner did last. */
  failureTailEvents: 8,
  /**
   * How often a process that waits for a suspended task's resume time looks at the task: a
   * cancel, a removal or someone else's resume ends the wait within this, at one small read.
   */
  resumeLookMs: 1000,
  /**
   * The most bytes of the user's config file looked through for a `store:` key before the file
   * is parsed; a config file is far smaller, and a larger one is left to the full reader.
   */
  storeLookBytes: 64 * 1024,
  /** The width `--help` wraps at when it goes to a pipe or a file, commander's own choice. */
  helpColumns: 80,
} as const;
