// The work queue: every task created is handed to exactly one of the workers pulling at once.
import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import { FleetStore, FLEET_LIMITS, specWaitMs } from "../../src/fleet/index.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";

const skip = natsServerMissing();

/** Every id a worker pulls until the queue stays empty for a second. */
async function drain(worker: FleetStore): Promise<string[]> {
  const taken: string[] = [];
  for (;;) {
    const id = await worker.nextToRun(1000);
    if (id === undefined) return taken;
    taken.push(id);
  }
}

describe("the fleet's work queue", { skip }, () => {
  let server: NatsServer;
  const stores: FleetStore[] = [];
  before(async () => {
    server = await NatsServer.start();
    for (let i = 0; i < 3; i++)
      stores.push(await FleetStore.open({ servers: server.url, env: {} }));
  });
  after(async () => {
    for (const store of stores) await store.close();
    await server.stop();
  });

  test("each task created goes to exactly one of two workers pulling at once", async () => {
    const [maker, first, second] = stores;
    assert.ok(maker !== undefined && first !== undefined && second !== undefined);
    const created: string[] = [];
    for (let i = 0; i < 20; i++) {
      created.push((await maker.create({ prompt: `work ${i}`, parent: null })).id);
    }
    const [a, b] = await Promise.all([drain(first), drain(second)]);
    const all = [...a, ...b];
    assert.equal(all.length, created.length, "no id was handed out twice");
    assert.deepEqual([...all].sort(), [...created].sort());
    const attachment = await first.attach(a[0] ?? b[0] ?? "");
    assert.equal(attachment.attempt, 1);
    await attachment.finish({ state: "succeeded" });
  });
});

test("an id whose spec is missing is pulled again soon at first, then every half second", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 26].map(specWaitMs),
    [5, 10, 20, 40, 80, 160, 320, 500, 500],
  );
  const total = Array.from({ length: FLEET_LIMITS.queueSpecWaits - 1 }, (_, i) =>
    specWaitMs(i + 1),
  ).reduce((a, b) => a + b, 0);
  assert.ok(total >= 9_000 && total <= 11_000, `a dead creator's id is dropped after ${total} ms`);
});
