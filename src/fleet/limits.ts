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
