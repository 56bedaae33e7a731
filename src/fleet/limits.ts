// Every bound and timing of the fleet's store, each with the reason it has the value it has.
const SECOND = 1000;

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
} as const;

const KiB = 1024;
const MiB = 1024 * KiB;

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
