// Where the fleet's store keeps what, in JetStream. Each piece is the JetStream primitive whose
// guarantee the store's rule needs:
//
// - KV bucket `<prefix>_tasks`, one history entry per key. `spec.<id>` is created once and never
//   updated (the immutable spec: KV create fails on an existing key). `run.<id>` is the task's
//   mutable record (lease, attempts, cancel request, counts, terminal record), changed only by
//   compare-and-set on its revision: the revision is the fencing token, and a writer checks the
//   lease's attempt number in the same step, so a holder whose lease was reaped or taken can
//   never write the terminal record. `child.<parent>.<child>` indexes a task's children for
//   cancel's walk. `msg.<id>.<n>` and `ask.<id>.<n>` are the inbox and the approval prompts, one
//   key each so a 256 KiB message never meets the server's 1 MiB payload bound; their counts
//   live in the run record, so the 16-message and 256-prompt bounds are checked by the same
//   compare-and-set that orders them against the terminal record. `waits` holds the wait
//   edges between trees, checked for cycles and replaced by compare-and-set.
// - Stream `<PREFIX>_EVENTS`, subjects `<prefix>.events.<id>`: the events of each task in order.
//   The holder publishes with the subject's expected last sequence, so a stale holder's event
//   is refused once a newer holder appended; `watch` is an ordered consumer of the subject, and
//   the cursor is the task's own seq carried in each event.
// - Object store `<prefix>_objects`: prompts (up to 1 MiB) now, and the share inputs, results
//   and changes bundles a worker moves, which are larger than a message and are chunked.
// - Stream `<PREFIX>_QUEUE`, work-queue retention, subject `<prefix>.queue`: the ids of tasks to
//   run, each taken by exactly one worker (the queue removes a message once it is acked).
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { Objm, type ObjectStore } from "@nats-io/obj";

export interface FleetNames {
  tasksBucket: string;
  objectBucket: string;
  eventsStream: string;
  queueStream: string;
  eventsSubject(id: string): string;
  queueSubject: string;
}

export function fleetNames(prefix: string): FleetNames {
  return {
    tasksBucket: `${prefix}_tasks`,
    objectBucket: `${prefix}_objects`,
    eventsStream: `${prefix.toUpperCase()}_EVENTS`,
    queueStream: `${prefix.toUpperCase()}_QUEUE`,
    eventsSubject: (id) => `${prefix}.events.${id}`,
    queueSubject: `${prefix}.queue`,
  };
}

/** The durable consumer of the queue that every worker shares. */
export const QUEUE_CONSUMER = "workers";

export const KEYS = {
  spec: (id: string) => `spec.${id}`,
  run: (id: string) => `run.${id}`,
  child: (parent: string, child: string) => `child.${parent}.${child}`,
  children: (parent: string) => `child.${parent}.*`,
  message: (id: string, n: number) => `msg.${id}.${n}`,
  messages: (id: string) => `msg.${id}.*`,
  approval: (id: string, n: number) => `ask.${id}.${n}`,
  approvals: (id: string) => `ask.${id}.*`,
  waits: "waits",
} as const;

export interface FleetLayout {
  names: FleetNames;
  kv: KV;
  objects: ObjectStore;
}

/**
 * Creates the buckets and streams when they are missing, and opens them. `replicas` is how many
 * servers of a JetStream cluster keep each of them (1, 3 or 5): with 3, the store goes on when
 * one server is lost. It applies when a piece is created; an existing piece keeps its own.
 */
export async function openLayout(
  js: JetStreamClient,
  jsm: JetStreamManager,
  prefix: string,
  replicas: number,
): Promise<FleetLayout> {
  const names = fleetNames(prefix);
  // Reads go to the stream's leader, never to a replica: a replica may answer a read before it
  // has the write just made (a task created and at once not found on a cluster), and each
  // compare-and-set would then start from an old revision.
  const kv = await new Kvm(js).create(names.tasksBucket, {
    history: 1,
    replicas,
    allow_direct: false,
  });
  const objects = await new Objm(js).create(names.objectBucket, { replicas });
  await ensureStream(jsm, {
    name: names.eventsStream,
    subjects: [names.eventsSubject("*")],
    num_replicas: replicas,
  });
  await ensureStream(jsm, {
    name: names.queueStream,
    subjects: [names.queueSubject],
    retention: "workqueue",
    num_replicas: replicas,
  });
  // One durable consumer that every worker pulls from: a work queue allows one consumer per
  // subject, and sharing it is what hands each id to exactly one worker.
  await jsm.consumers.add(names.queueStream, {
    durable_name: QUEUE_CONSUMER,
    ack_policy: "explicit",
  });
  return { names, kv, objects };
}

async function ensureStream(
  jsm: JetStreamManager,
  config: { name: string; subjects: string[]; retention?: "workqueue"; num_replicas: number },
): Promise<void> {
  try {
    await jsm.streams.info(config.name);
  } catch {
    await jsm.streams.add(config);
  }
}
