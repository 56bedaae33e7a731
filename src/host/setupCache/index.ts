// warden/host/setupCache: the host's store of setup snapshots, keyed by what the setup depends
// on, each checked against its digest at every use and removed by `warden gc` when unused.
export {
  DEFAULT_KEY_PATTERNS,
  globPattern,
  keyDigest,
  parseTree,
  setupCacheKey,
} from "./cacheKey.js";
export type { KeyInput, TreeEntry } from "./cacheKey.js";
export {
  evictEntry,
  fileDigest,
  SETUP_CACHE_DIR,
  storeSnapshot,
  takeSnapshot,
  trimSetupCaches,
  type CacheEntry,
  type CacheLookup,
  type SetupTrimOutcome,
} from "./cacheStore.js";
export { SETUP_CACHE_LIMITS } from "./limits.js";
