// The fleet's store on a three-node JetStream cluster with every piece kept on three servers:
// one node killed with SIGKILL, the one the client uses or another, and tasks go on (create,
// attach, events, send, cancel, finish, watch), with nothing that was written before lost.
import { strict as assert } from "node:assert";
import { setTimeout as sleep } from "node:timers/promises";
import { after, describe, test } from "node:test";
import { FleetStore } from "../../src/fleet/index.js";
import { NatsCluster, natsServerMissing, type ClusterNode } from "../support/natsCluster.js";
import { assertWhole, followed, steps } from "./fixtures/taskHistory.js";

const skip = natsServerMissing();
/** Every piece of the store on all three servers: a quorum of two survives one loss. */
const REPLICAS = 3;
/**
 * How long the cluster may take to elect new leaders for what the lost node led; JetStream's
 * elections take seconds, and a shared machine is slow.
 */
const RECOVERY_MS = 45_000;
const RECOVERY_PAUSE_MS = 250;

/** Waits until the store reads every piece (bucket, object store, events) again after the loss. */
async function recovered(store: FleetStore, probeId: string): Promise<void> {
  const giveUpAt = Date.now() + RECOVERY_MS;
  for (;;) {
    try {
      await store.list();
      // A task's whole details read its spec, run record and prompt (the object store).
      await store.get(probeId);
      for await (const _event of store.watch(probeId, { follow: false })) {
        // Reading the whole subject shows the events stream has a leader again.
      }
      return;
    } catch (error) {
      if (Date.now() > giveUpAt) throw error;
      await sleep(RECOVERY_PAUSE_MS);
    }
  }
}

/**
 * The scenario: tasks in every state before the loss, the node `victim` picks killed, then
 * every verb on old and new tasks; every task's history is whole at the end.
 */
async function tasksGoOnAfterLosing(
  cluster: NatsCluster,
  servers: string[],
  victim: (store: FleetStore) => ClusterNode,
): Promise<{ store: FleetStore; killed: ClusterNode; before: string }> {
  const store = await FleetStore.open({ servers, env: {}, replicas: REPLICAS });
  const finished = await store.create({ prompt: "ended before the loss", parent: null });
  const early = await store.attach(finished.id);
  await early.appendEvent("step", { i: 0 });
  await early.finish({ state: "succeeded", summary: "before" });

  const running = await store.create({ prompt: "runs across the loss", parent: null });
  const holder = await store.attach(running.id);
  for (let i = 0; i < 3; i++) await holder.appendEvent("step", { i });
  const watcher = followed(store, running.id);

  const waiting = await store.create({ prompt: "attached after the loss", parent: null });
  await store.send(waiting.id, "sent before the loss");
  const doomed = await store.create({ prompt: "cancelled after the loss", parent: null });

  const before = store.server;
  const killed = victim(store);
  await killed.process.kill();
  await recovered(store, finished.id);

  for (let i = 3; i < 6; i++) await holder.appendEvent("step", { i });
  await store.send(waiting.id, "sent after the loss");
  const late = await store.attach(waiting.id);
  assert.equal(late.attempt, 1);
  const taken = await late.takeMessages();
  assert.deepEqual(
    taken.map((m) => m.body),
    ["sent before the loss", "sent after the loss"],
  );
  await late.appendEvent("step", { i: 0 });
  await late.finish({ state: "succeeded" });

  const cancel = await store.cancel(doomed.id);
  assert.deepEqual(cancel.recorded, [doomed.id]);

  const fresh = await store.create({ prompt: "created after the loss", parent: null });
  const freshRun = await store.attach(fresh.id);
  await freshRun.appendEvent("step", { i: 0 });
  await freshRun.finish({ state: "failed", error: "made to fail" });

  await holder.finish({ state: "succeeded", summary: "across the loss" });
  const watched = await watcher;
  assert.deepEqual(steps(watched), [0, 1, 2, 3, 4, 5], "the watcher saw every step once, in order");
  assert.equal((await assertWhole(store, running.id, watched)).summary, "across the loss");
  assert.equal((await assertWhole(store, finished.id)).summary, "before");
  assert.equal((await assertWhole(store, waiting.id)).state, "succeeded");
  assert.equal((await assertWhole(store, fresh.id)).state, "failed");
  assert.equal((await store.get(doomed.id)).state, "cancelled");

  const states = new Map((await store.list()).map((t) => [t.id, t.state]));
  assert.deepEqual(
    [finished.id, running.id, waiting.id, doomed.id, fresh.id].map((id) => states.get(id)),
    ["succeeded", "succeeded", "succeeded", "cancelled", "failed"],
  );
  return { store, killed, before };
}

describe("the fleet's store on a three-node cluster with replicas 3", { skip }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  const cluster = async (): Promise<NatsCluster> => {
    const started = await NatsCluster.start();
    cleanups.push(() => started.stop());
    return started;
  };

  test("keeps every piece on all three servers", async () => {
    const nodes = await cluster();
    const store = await FleetStore.open({ servers: nodes.urls, env: {}, replicas: REPLICAS });
    cleanups.push(() => store.close());
    const { jetstreamManager } = await import("@nats-io/jetstream");
    const { connect } = await import("@nats-io/transport-node");
    const nc = await connect({ servers: nodes.urls });
    try {
      const jsm = await jetstreamManager(nc);
      const replicas: Record<string, number> = {};
      for await (const info of jsm.streams.list())
        replicas[info.config.name] = info.config.num_replicas;
      assert.deepEqual(replicas, {
        KV_warden_tasks: REPLICAS,
        OBJ_warden_objects: REPLICAS,
        WARDEN_EVENTS: REPLICAS,
        WARDEN_QUEUE: REPLICAS,
      });
    } finally {
      await nc.close();
    }
  });

  test("tasks go on when a node the client is not connected to is killed", async () => {
    const nodes = await cluster();
    const first = nodes.nodes[0];
    assert.ok(first !== undefined);
    const { store, killed, before } = await tasksGoOnAfterLosing(nodes, [first.url], (s) => {
      const other = nodes.nodes.find((n) => n.hostPort !== s.server);
      assert.ok(other !== undefined);
      return other;
    });
    cleanups.push(() => store.close());
    assert.notEqual(killed.hostPort, before);
    assert.equal(store.server, before, "the client stayed on its own server");
  });

  test("tasks go on when the node the client is connected to is killed", async () => {
    const nodes = await cluster();
    const { store, killed, before } = await tasksGoOnAfterLosing(nodes, nodes.urls, (s) =>
      nodes.nodeAt(s.server),
    );
    cleanups.push(() => store.close());
    assert.equal(killed.hostPort, before);
    assert.notEqual(store.server, before, "the client moved to a server still alive");
  });
});
