// Every number the sandboxes are built with, in one place, with the reason beside it.

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export const SANDBOX_LIMITS = {
  /**
   * The uid and gid the runner has inside bwrap. Never 0: a sandboxed root (even one without
   * capabilities in the parent namespace) owns its mount namespace and could remount the
   * read-only binds writable. 1000 is the first ordinary user on most distributions, so tools
   * that treat uid 0 or system uids specially behave as they do for a developer.
   */
  uid: 1000,
  gid: 1000,
  /** /tmp inside bwrap is RAM-backed; this bounds it when no memory limit applies. */
  tmpBytes: 2 * GiB,
  /** The tmpfs home: agent settings and package caches, also RAM-backed. */
  homeBytes: 1 * GiB,
  /** /dev/shm: POSIX shared memory for the few tools that use it. */
  shmBytes: 64 * MiB,
  /**
   * From spawning bwrap to its report that the namespaces exist. It takes about 10 ms here; a
   * bwrap that has not reported after this long is stuck (an unreadable bind on a hung mount).
   */
  setupMs: 10_000,
  /**
   * How long stop() looks for the runner's process right after start, before it gives up on a
   * polite SIGTERM and kills the sandbox at once. bwrap forks the runner microseconds after setup.
   */
  findRunnerMs: 1_000,
  /**
   * After a sandbox ends, how long its cgroup may take to empty before warden gives up removing
   * it (a dying process leaves its cgroup a moment after the exit is reported).
   */
  cgroupRemoveMs: 2_000,
  /** The smallest memory limit accepted: Node alone needs about this much to start. */
  minMemoryBytes: 32 * MiB,
  /**
   * The smallest process limit accepted. The kernel counts threads, and one Node process has
   * about a dozen, so the runner and a Node agent need several dozen.
   */
  minProcesses: 32,
} as const;
