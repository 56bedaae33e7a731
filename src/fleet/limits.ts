// Every bound and timing of the fleet's store, each with the reason it has the value it has.
import { STORE_LIMITS } from "../store/index.js";

const SECOND = 1000;
const KiB = 1024;
const MiB = 1024 * KiB;

export const FLEET_TIMING = {
  /**
   * How long a lease lives without a heartbeat. nats-server 2.9 has no per-message TTL, so a
   * lease is a time in the task's run record that its holder renews; past this it is free.
   * Long enough that a loaded worker never loses a lease it still holds, short enough that a
   * crashed worker's task is taken up again within a minute.
   */
  leaseTtlMs: 30 * SECOND,
  /** How often a holder renews its lease: a third of its life, so two beats may be late. */
  heartbeatMs: 10 * SECOND,
  /** How long a watcher's pull waits for a new event before it looks at the run record. */
  watchPullMs: 1 * SECOND,
  /** How often a waiter reads the run record while it waits for the terminal record. */
  waitPollMs: 200,
  /** How often a finishing parent looks at its running children again. */
  childPollMs: 50,
  /** How many times a compare-and-set is retried on contention before it is an error. */
  casAttempts: 64,
  /**
   * How long a watcher keeps retrying reads that time out: a cluster that lost a node elects
   * new leaders within seconds, a client reconnects within seconds, so a minute outlasts both.
   */
  outageMs: 60 * SECOND,
  /** The pause between two tries of such a read. */
  outagePauseMs: 250,
  /** The shortest pull of the queue: the client refuses a pull that expires sooner. */
  queueShortestPullMs: 1 * SECOND,
  /**
   * How long a queued id whose spec is not written yet waits before it is pulled again: first
   * queueSpecFirstWaitMs, doubled at each pull up to queueSpecWaitMs. The creator writes the spec
   * one round trip after it queues the id, so a worker that pulls in between mostly finds it a
   * few milliseconds later; a fixed half second there was the slowest part of a claim.
   */
  queueSpecFirstWaitMs: 5,
  queueSpecWaitMs: 500,
} as const;

export const FLEET_LIMITS = {
  /**
   * How many servers keep each bucket and stream unless the opener says otherwise: one, for a
   * single server; a cluster's operator asks for 3 (or 5) so that losing one server loses nothing.
   */
  defaultReplicas: 1,
  /**
   * The largest KV entry read (message, approval prompt, wait edges): nats-server's default
   * largest payload. Anything larger was not written by this store and is not parsed.
   */
  entryBytes: 1 * MiB,
  /**
   * The largest run record read: its terminal record's details (64 KiB of JSON), error (16 KiB)
   * and summary (4 KiB) fit even with every character escaped; a larger record is damaged.
   */
  runEntryBytes: 256 * KiB,
  /**
   * The largest spec entry read: the settings (64 KiB as JSON), repo and base (4 KiB each),
   * 32 labels and the title fit several times over; a larger spec is damaged.
   */
  specEntryBytes: 256 * KiB,
  /**
   * A task's events on the stream as a whole, newlines counted as on the filesystem: the
   * filesystem store's bound, so a runaway agent fills neither a disk nor the stream.
   */
  eventsBytes: STORE_LIMITS.eventsFileBytes,
  /**
   * How many times a queued id is pulled while its spec is missing before it is dropped: its
   * creator writes the spec right after queueing it, so 26 waits (the first seven growing from
   * 5 ms, then half a second each: 10 s in all) outlast a loaded machine, and an id still without
   * a spec names a task whose creator died.
   */
  queueSpecWaits: 26,
} as const;

/** The bounds and timings of `warden worker` (src/fleet/worker/), each with its reason. */
export const WORKER_LIMITS = {
  /**
   * The largest base bundle a worker fetches: the object is written by a client, another
   * machine, so its size is not taken on trust. A whole repository's history: twice the 1 GiB a
   * task's changes may be.
   */
  baseBundleBytes: 2 * 1024 * 1024 * 1024,
  /** How long one pull of the work queue waits for an id before the worker looks around. */
  pullWaitMs: 1 * SECOND,
  /**
   * When a task needs labels this worker lacks, how long before the queue hands its id out
   * again: long enough that a worker without them does not spin on it, short enough that a
   * worker with them, pulling meanwhile, takes it within a second or two.
   */
  unlabelledRedeliverMs: 1 * SECOND,
  /**
   * How often every worker runs the reaper: a third of a lease's life, so a dead worker's task
   * is queued again within a lease and a third of its last beat.
   */
  reapEveryMs: 10 * SECOND,
  /**
   * How often a running task's mirror looks at the fleet (inbox, approvals' answers, a cancel
   * request, the lease) and at the local task (deliveries, approval prompts). A person's
   * message or cancel reaches the sandbox within this; each look is a few KV reads.
   */
  mirrorPollMs: 250,
  /**
   * How long a setup snapshot no task on this worker started from is kept. Snapshots outlive
   * their task on purpose (the next task with the same setup starts from one), so they are
   * trimmed by age after each task, and the worker's disk holds only what a day's tasks used.
   */
  setupSnapshotKeepMs: 24 * 60 * 60 * SECOND,
  /** After SIGTERM, how long running tasks may go on to their end before they are handed back. */
  stopGraceMs: 0,
} as const;

/** The bounds of a client of the fleet: what it reads from another machine is bounded. */
export const FLEET_CLIENT_LIMITS = {
  /** How long a client waits for the server's greeting before it says the fleet is unreachable. */
  connectTimeoutMs: 5 * SECOND,
  /** An nkey seed is 58 characters and a creds file two short blocks: a few KiB is generous. */
  credentialFileBytes: 64 * KiB,
  /** result.json as a worker kept it: the bound the host sets on the sandbox's (LIMITS). */
  resultJsonBytes: 1 * MiB,
  /** A changes bundle: the bound the host sets on the sandbox's (LIMITS.changesBytes). */
  changesBundleBytes: 1024 * MiB,
  /** The guest log the worker kept: the bound the host writes it under (HOST_LIMITS). */
  guestLogBytes: 16 * MiB,
} as const;
