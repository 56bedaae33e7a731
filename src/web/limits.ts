// Every limit of `warden serve`, with the reason beside it.

export const WEB_LIMITS = {
  /** Random bytes in the access token: 256 bits, beyond guessing over any network. */
  tokenBytes: 32,
  /** A request body (a message, an approval) is small; anything larger is refused unread. */
  requestBodyBytes: 64 * 1024,
  /** A request line and headers: a browser's are a few KiB. */
  requestHeaderBytes: 16 * 1024,
  /** Headers must arrive within this: a slow client cannot hold a socket forever. */
  headersTimeoutMs: 10_000,
  /** Open connections at once: a page holds a few (the list feed, a task's events, fetches). */
  connections: 64,
  /** Live feeds at once (list and task events): each holds a watcher and a socket. */
  feeds: 32,
  /** Tasks in one page of the list: the page asks for the next page as it scrolls. */
  listPage: 200,
  /** A feed with nothing to say still writes a comment this often, so proxies keep it open. */
  keepAliveMs: 15_000,
  /**
   * Task ids named in one notice of the list feed (a task's page reloads when its own is named);
   * a burst about more tasks names none, and every page reloads.
   */
  feedTaskIds: 200,
  /** List changes closer together than this are sent as one: a burst of events is one update. */
  listSettleMs: 50,
  /** Notifications sent at once before the rate holds them back: a few tasks ending together. */
  notifyBurst: 10,
  /** Notifications a minute after a burst, per target: a person's phone, not a log. */
  notifyPerMinute: 30,
  /** Tries of one notification: the first and three more after waits that grow fourfold. */
  notifyAttempts: 4,
  /** The first wait before a notification is tried again. */
  notifyBackoffMs: 1_000,
  /** A notify command or webhook call that takes longer is stopped and counts as failed. */
  notifyTimeoutMs: 30_000,
  /** Notifications waiting per target; past this the oldest are dropped and counted. */
  notifyQueue: 100,
  /**
   * How often the server looks for suspended tasks due to resume that no process waits for: a
   * resume this late is nothing next to a usage limit's wait, and a scan is one list of the store.
   */
  resumeScanMs: 5_000,
} as const;
