// Every bound of the host's spending caps, in one place, with the reason beside it.

const SECOND = 1000;

export const SPEND_LIMITS = {
  /**
   * The most a spend record or the ledger holds for one task, in US dollars: a million times a
   * large day's spend. A total saturates here rather than growing to Infinity, and a record or a
   * ledger line above it is not one warden wrote, so it is refused or ignored.
   */
  maxRecordedUSD: 1e9,
  /**
   * How close to a cap a spend counts as reaching it: sums of prices in binary floating point
   * land a hair below a round cap ($0.09 + $0.01 is 0.09999999999999999), and a nanodollar is
   * far below any price.
   */
  capToleranceUSD: 1e-9,
  /** Token counts saturate at the largest integer a JSON number holds exactly. */
  maxTokens: Number.MAX_SAFE_INTEGER,
  /**
   * How often the gate reads the day's ledger, and its tree's records while no request asks.
   * Other tasks' spend of the day counts this much later at most.
   */
  refreshMs: 250,
  /**
   * How long a check of a request may reuse the tree's spend as last read: a burst of
   * requests reads the tree's records once, and a sibling's spend written longer ago counts.
   */
  treeReadMs: 20,
  /**
   * The least time between two `usage` events of one attach: a flood of requests updates the
   * record and the ledger, but a watcher gets one line every few seconds at most.
   */
  usageEventMs: 2 * SECOND,
  /** `usage` events one attach appends at most; past this only the record moves on. */
  usageEvents: 5000,
  /** A spend record is a few hundred bytes; one larger than this is not warden's. */
  recordBytes: 4096,
  /** A ledger line is about two hundred bytes; a longer one is not warden's and is ignored. */
  ledgerLineBytes: 1024,
  /** The most of the ledger one refresh reads, so a flooded ledger cannot stall a request. */
  ledgerReadBytes: 4 * 1024 * 1024,
  /**
   * Tasks one walk of a tree reads (a file and a directory each, at once, while a request
   * waits). The store bounds a tree's depth, not its breadth; past this the walk stops and the
   * tree's spend is what it read, with a warning.
   */
  treeTasks: 1000,
  /** A spec.json is at most a few hundred KiB (the store bounds its settings). */
  specBytes: 1024 * 1024,
  /** How long an append waits for another writer's lock on the ledger before it gives up. */
  ledgerLockWaitMs: 5 * SECOND,
  /** How often an append tries the ledger's lock again while another writer holds it. */
  ledgerLockPollMs: 2,
} as const;
