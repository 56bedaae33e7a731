// The CLI's own limits, each with its reason. The limits of what tasks hold live in the store's
// and the protocol's limits files.

export const CLI_LIMITS = {
  /**
   * The fewest characters of a title `ls` keeps when it fits rows to the terminal: fewer could
   * not tell tasks apart, so a terminal narrower than the other columns plus this wraps instead.
   */
  lsTitleMinColumns: 12,
} as const;
