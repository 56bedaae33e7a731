// The host's bounds on the checkpoints it keeps (the wire's are CHECKPOINT_LIMITS in src/protocol).
import { CHECKPOINT_LIMITS } from "../../protocol/index.js";

export const HOST_CHECKPOINT_LIMITS = {
  /**
   * What one task's kept checkpoint may take on disk: its bundle and its session file at their
   * bounds. Only the latest is kept, so this bounds a task's checkpoints over its whole life.
   */
  keptBytes: CHECKPOINT_LIMITS.bundleBytes + CHECKPOINT_LIMITS.sessionBytes,
  /** checkpoint.json: a few ids and numbers, so anything bigger is not the host's own. */
  manifestBytes: 16 * 1024,
} as const;
