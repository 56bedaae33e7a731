// The fleet's lease is its fencing: one attach wins a race, a lease whose holder stopped beating
// is reaped and leased again with a higher attempt, and the holder that lost it can no longer
// write events or the terminal record.
import { strict as assert } from "node:assert";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { FleetStore } from "../../src/fleet/index.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";
import { Holder } from "./fixtures/holderProcess.js";

/** Leases in these tests live a second, beating four times in it. */
const TTL_MS = 1000;
const BEAT_MS = 250;

const skip = natsServerMissing();

describe("the fleet's leases fence their holders", { skip }, () => {
  let server: NatsServer;
  let store: FleetStore;
  let other: FleetStore;
  const holders: Holder[] = [];
  before(async () => {
    server = await NatsServer.start();
    const options = { servers: server.url, env: {}, leaseTtlMs: TTL_MS, heartbeatMs: BEAT_MS };
    store = await FleetStore.open(options);
    other = await FleetStore.open(options);
  });
  after(async () => {
    for (const holder of holders) holder.kill();
    await store.close();
    await other.close();
    await server.stop();
  });
  const holder = (id: string): Holder => {
    const made = Holder.start(server.url, id, TTL_MS, BEAT_MS);
    holders.push(made);
    return made;
  };

  test("two attaches race from two connections and exactly one wins each task", async () => {
    for (let i = 0; i < 10; i++) {
      const { id } = await store.create({ prompt: `race ${i}`, parent: null });
      const results = await Promise.allSettled([store.attach(id), other.attach(id)]);
      const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
      assert.equal(won.length, 1);
      assert.equal((lost[0] as { code?: string }).code, "ALREADY_ATTACHED");
      for (const winner of won) {
        assert.equal(winner.attempt, 1);
        await winner.finish({ state: "succeeded" });
      }
    }
  });

  test("a holder killed with SIGKILL stops beating; its lease is reaped and the task leased again", async () => {
    const { id } = await store.create({ prompt: "a holder that dies", parent: null });
    const dying = holder(id);
    assert.equal(await dying.line(), "attached 1");
    dying.kill();
    // The lease is live until it has gone a whole life without a beat.
    await assert.rejects(store.attach(id), (e: { code?: string }) => e.code === "ALREADY_ATTACHED");
    await sleep(TTL_MS + BEAT_MS);
    assert.deepEqual(await store.reap(), [id]);
    assert.equal((await store.get(id)).state, "interrupted");
    const again = await store.attach(id);
    assert.equal(again.attempt, 2);
    const record = await again.finish({ state: "succeeded" });
    assert.equal(record.attempts, 2);
  });

  test("a holder stopped past its lease's life can write neither events nor the terminal record", async () => {
    const { id } = await store.create({ prompt: "a holder that stalls", parent: null });
    const stale = holder(id);
    assert.equal(await stale.line(), "attached 1");
    stale.say("event");
    assert.equal(await stale.line(), "event done");
    stale.child.kill("SIGSTOP");
    await sleep(TTL_MS + BEAT_MS);
    const fresh = await other.attach(id);
    assert.equal(fresh.attempt, 2);
    stale.child.kill("SIGCONT");
    stale.say("event");
    assert.equal(await stale.line(), "event refused LEASE_LOST");
    stale.say("finish");
    assert.equal(await stale.line(), "finish refused LEASE_LOST");
    const details = await store.get(id);
    assert.equal(details.state, "running");
    assert.equal(details.holder?.attempt, 2);
    const record = await fresh.finish({ state: "succeeded", summary: "the fresh holder" });
    assert.equal(record.summary, "the fresh holder");
    assert.equal((await store.get(id)).terminal?.summary, "the fresh holder");
  });

  test("a holder that never saw its lease go finds its terminal record refused by the run record", async () => {
    const quiet = await FleetStore.open({
      servers: server.url,
      env: {},
      leaseTtlMs: TTL_MS,
      // It never beats within the test, so only the server can tell it that its lease is gone.
      heartbeatMs: 3_600_000,
    });
    try {
      const { id } = await quiet.create({ prompt: "a holder that never beats", parent: null });
      const unaware = await quiet.attach(id);
      await sleep(TTL_MS + BEAT_MS);
      const fresh = await store.attach(id);
      assert.equal(fresh.attempt, 2);
      await assert.rejects(
        unaware.finish({ state: "failed", error: "the stale end" }),
        (e: { code?: string }) => e.code === "LEASE_LOST",
      );
      assert.equal((await store.get(id)).state, "running");
      await fresh.finish({ state: "succeeded" });
      assert.equal((await store.get(id)).terminal?.attempts, 2);
    } finally {
      await quiet.close();
    }
  });
});
