// Every number the sandboxes are built with, in one place, with the reason beside it.

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

export const SANDBOX_LIMITS = {
  /**
   * The host uid and gid of every sandbox when warden runs as root (WARDEN_SANDBOX_UID changes
   * it). 0x70000000 is above the ranges distributions give to users, services and containers
   * (systemd's container range ends just below it) and below 2^31, which some tools read as
   * negative: no file or process of the host belongs to it.
   */
  dedicatedUid: 1_879_048_192,
  /**
   * The uid and gid the runner has inside bwrap. Never 0: a sandboxed root (even one without
   * capabilities in the parent namespace) owns its mount namespace and could remount the
   * read-only binds writable. 1000 is the first ordinary user on most distributions, so tools
   * that treat uid 0 or system uids specially behave as they do for a developer.
   */
  uid: 1000,
  gid: 1000,
  /**
   * The bounds every task has unless it asks otherwise (0 asks for none). A laptop can bear a
   * few tasks at these at once; a build that needs more says so with --memory, --max-processes
   * or --disk.
   */
  defaults: {
    /** All memory of the sandbox's processes, its RAM-backed /tmp and home included. */
    memoryBytes: 4 * GiB,
    /** Processes and threads together, as the kernel counts them. */
    processes: 1024,
    /** The workspace on the host's disk: the clone, the build, what the agent writes. */
    diskBytes: 8 * GiB,
  },
  /**
   * Files and directories a workspace may hold. Empty files take no disk blocks, so a bound on
   * bytes alone would let a task use up the host file system's inodes.
   */
  diskFiles: 2_000_000,
  /**
   * How long a process reuses a backend's passed check (for bwrap, a trial sandbox that shows the
   * seccomp filter in force) before it makes it again. What the check depends on (the kernel,
   * bubblewrap, the user namespaces' sysctls) changes with an administrator's act, not between
   * one task and the next; a minute bounds how stale a pass may be.
   */
  checkReuseMs: 60_000,
  /** How often the host measures the workspace and reads the cgroups' events. */
  boundPollMs: 1_000,
  /**
   * A measurement of the workspace that takes longer than this is abandoned: the next one
   * starts from scratch. A workspace within its file bound is read in well under this.
   */
  measureMs: 30_000,
  /**
   * Workspaces one du measures together. Each path is at most PATH_MAX (4 KiB), so a round's
   * argv and du's answer stay far below the kernel's argument limit and measureOutputBytes.
   */
  measureBatchDirs: 128,
  /** What du may print for one batch: a total and a path per workspace. */
  measureOutputBytes: 1 * MiB,
  /**
   * After the sandbox has ended the host measures the workspace itself, this many entries at a
   * time (about 5 ms of synchronous calls) before it lets its event loop go, so the other tasks
   * of the process are not held up by a large workspace.
   */
  settledSliceEntries: 2_000,
  /** The smallest disk bound accepted: a clone and a commit need a few MiB. */
  minDiskBytes: 16 * MiB,
  /** /tmp inside bwrap is RAM-backed and counts against memory; never larger than this. */
  tmpBytes: 2 * GiB,
  /** The tmpfs home: agent settings and package caches, also RAM-backed. */
  homeBytes: 1 * GiB,
  /** /dev/shm: POSIX shared memory for the few tools that use it. */
  shmBytes: 64 * MiB,
  /**
   * From spawning bwrap to its report that the namespaces exist. It takes about 10 ms on an idle
   * machine, and up to 9 s on two cores starting a hundred sandboxes at once; a bwrap that has
   * not reported after this long is stuck (an unreadable bind on a hung mount).
   */
  setupMs: 60_000,
  /**
   * After a bwrap that failed to make its sandbox has exited, how long its stderr may stay open
   * (held by a process it started) before warden reports the failure with what it has read.
   */
  stderrAfterExitMs: 1_000,
  /** The most of a failed bwrap's stderr kept for the error (it is one line once cleaned). */
  failureTextBytes: 16 * KiB,
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
  /**
   * The first pause before a cgroup whose last process is still leaving is tried again: the
   * kernel lets go of an exited process within about a millisecond, and the task's end waits
   * for this. Each further pause doubles, up to cgroupRemovePauseMs.
   */
  cgroupRemoveFirstPauseMs: 1,
  /** The longest pause between two tries at removing a cgroup. */
  cgroupRemovePauseMs: 20,
  /** The smallest memory limit accepted: Node alone needs about this much to start. */
  minMemoryBytes: 32 * MiB,
  /**
   * The smallest process limit accepted. The kernel counts threads, and one Node process has
   * about a dozen, so the runner and a Node agent need several dozen.
   */
  minProcesses: 32,
} as const;
