// The per-repository history cache that sandboxes borrow objects from.
export { leaseHistory, type HistoryLease, type HistorySource } from "./historyLease.js";
export { trimHistoryCaches, type TrimOutcome } from "./trimCaches.js";
export { cacheLayout, HISTORY_DIR, type CacheLayout } from "./cacheLayout.js";
