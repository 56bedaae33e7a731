// A holder cut off from the network: it holds a task's lease from its own network namespace,
// the link is cut, the lease runs out and the host side takes the task as attempt 2; once the
// link is back, the first holder can record neither an event nor an end, and says so.
import { strict as assert } from "node:assert";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { FleetStore } from "../../src/fleet/index.js";
import { skipWhen } from "../support/skipWhen.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";
import { NetNamespace, netnsMissing } from "../support/netns.js";
import { Holder, holderArgv } from "./fixtures/holderProcess.js";
import { assertWhole, eventsOf } from "./fixtures/taskHistory.js";

/** A short lease, so the test waits seconds: 1.5 s of life, a beat every 300 ms. */
const TTL_MS = 1500;
const BEAT_MS = 300;
/** How many times the cut-off holder is asked again while its client reconnects. */
const RETRIES = 20;

const skip = skipWhen(natsServerMissing() || netnsMissing());

describe("a lease holder cut off from the network", { skip }, () => {
  let ns: NetNamespace;
  let server: NatsServer;
  let store: FleetStore;
  before(async () => {
    ns = await NetNamespace.create();
    server = await NatsServer.start({ host: ns.hostAddress });
    store = await FleetStore.open({
      servers: server.url,
      env: {},
      leaseTtlMs: TTL_MS,
      heartbeatMs: BEAT_MS,
    });
  });
  after(async () => {
    await store.close();
    await server.stop();
    await ns.remove();
  });

  /** Asks the holder to do `what` until its answer is an answer of the store, not the network. */
  const ask = async (holder: Holder, what: string): Promise<string> => {
    for (let i = 0; ; i++) {
      holder.say(what);
      const said = await holder.line();
      if (!/TIMEOUT|timeout|DISCONNECT|CONNECTION/i.test(said) || i >= RETRIES) return said;
      await sleep(BEAT_MS);
    }
  };

  test("loses the task to another attach after its lease, and once back can record no end", async () => {
    const { id } = await store.create({ prompt: "run by a holder that is cut off", parent: null });
    const cutOff = new Holder(ns.spawn(holderArgv(server.url, id, TTL_MS, BEAT_MS)));
    assert.equal(await cutOff.line(), "attached 1");
    assert.equal(await ask(cutOff, "event"), "event done");

    await ns.cut();
    // While its beats went through, the lease was live; now nothing renews it.
    await assert.rejects(store.attach(id), (e: { code?: string }) => e.code === "ALREADY_ATTACHED");
    await sleep(TTL_MS + 2 * BEAT_MS);
    const taker = await store.attach(id);
    assert.equal(taker.attempt, 2);
    await taker.appendEvent("step", { by: "attempt 2" });
    await ns.restore();

    assert.equal(await ask(cutOff, "event"), "event refused LEASE_LOST");
    assert.equal(await ask(cutOff, "finish"), "finish refused LEASE_LOST");
    const details = await store.get(id);
    assert.equal(details.state, "running");
    assert.equal(details.holder?.attempt, 2);

    const record = await taker.finish({ state: "succeeded", summary: "attempt 2's end" });
    assert.equal(record.attempts, 2);
    const events = await eventsOf(store, id);
    const terminal = await assertWhole(store, id, events);
    assert.equal(terminal.summary, "attempt 2's end");
    assert.equal(terminal.attempts, 2);
    assert.deepEqual(
      events.filter((e) => e.type === "attached").map((e) => e.attempt),
      [1, 2],
    );
    assert.deepEqual(
      events.filter((e) => e.type === "step").map((e) => e.by),
      [undefined, "attempt 2"],
      "the cut-off holder's event before the cut is kept, none after",
    );
    cutOff.kill();
  });
});
