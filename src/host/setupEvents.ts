// The names of a setup's events and log, apart from setupPhase.ts so that `show`, which reads
// them, loads nothing else of the host's.

/** The setup's output in the task's results/, for a person (`warden logs --setup-log`). */
export const SETUP_LOG = "setup.log";

/** The events of a setup, as `watch` shows them. */
export const SETUP_EVENTS = {
  started: "setup_started",
  output: "setup_output",
  ended: "setup_ended",
  /** The snapshot of a past setup was restored; setup did not run. */
  cached: "setup_cached",
  /** A cached snapshot was damaged and removed; setup runs again. */
  evicted: "setup_cache_evicted",
  /** The snapshot of this setup was kept for later tasks. */
  stored: "setup_cache_stored",
} as const;
