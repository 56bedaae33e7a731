// The task bucket is read through its stream's leader: on a cluster, a replica may answer a read
// before it has the write just made (a task created, then not found by the next call), and a
// compare-and-set would start from an old revision.
import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { FleetStore } from "../../src/fleet/index.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";
import { RequestSpy } from "./fixtures/requestSpy.js";

describe("reads of the fleet's task bucket", { skip: natsServerMissing() }, () => {
  let server: NatsServer;
  let raw: NatsConnection;
  before(async () => {
    server = await NatsServer.start();
    raw = await connect({ servers: server.url });
  });
  after(async () => {
    await raw.close();
    await server.stop();
  });

  test("a task's records are read from the leader, never by a direct get a replica may answer", async () => {
    const spy = await RequestSpy.start(raw);
    const store = await FleetStore.open({ servers: server.url, env: {} });
    try {
      const { id } = await store.create({ prompt: "read me back", parent: null });
      const attachment = await store.attach(id);
      await attachment.appendEvent("step", { i: 1 });
      await attachment.finish({ state: "succeeded", summary: "done" });
      assert.equal((await store.get(id)).state, "succeeded");
      await raw.flush();
      const reads = spy.seen.filter((line) => line.startsWith("$JS.API.STREAM.MSG.GET.KV_"));
      assert.ok(reads.length > 0, "the task's records were read through the stream's API");
      assert.deepEqual(
        spy.seen.filter((line) => line.startsWith("$JS.API.DIRECT.GET.KV_")),
        [],
      );
    } finally {
      await store.close();
    }
  });
});
