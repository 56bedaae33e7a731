// The single-machine store's red team, against the fleet's store: hostile ids never reach a key
// or a subject, entries torn or planted in the bucket are STORE_CORRUPT and never hide the other
// tasks from `list`, floods of sends from many connections keep the inbox's bound exactly, and
// a flood of events stops at the filesystem's bound of a task's events.
import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import { Kvm, type KV } from "@nats-io/kv";
import { jetstream } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { FLEET_LIMITS, FleetStore } from "../../src/fleet/index.js";
import { STORE_LIMITS, type TaskEvent } from "../../src/store/index.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";
import { RequestSpy } from "./fixtures/requestSpy.js";
import { eventsOf } from "./fixtures/taskHistory.js";

const skip = natsServerMissing();
/** How many connections send at once, and how many messages each tries. */
const SENDERS = 4;
const SENDS_EACH = 8;

const code = (expected: string) => (error: { code?: string }) => {
  assert.equal(error.code, expected);
  return true;
};
const oneOf = (expected: string[]) => (error: { code?: string }) => {
  assert.ok(expected.includes(error.code ?? ""), `${error.code} is one of ${expected.join(", ")}`);
  return true;
};

describe("the fleet's store against hostile callers and a hostile bucket", { skip }, () => {
  let server: NatsServer;
  let store: FleetStore;
  let raw: NatsConnection;
  let kv: KV;
  const stores: FleetStore[] = [];
  before(async () => {
    server = await NatsServer.start();
    store = await FleetStore.open({ servers: server.url, env: {} });
    raw = await connect({ servers: server.url });
    kv = await new Kvm(jetstream(raw)).open("warden_tasks");
  });
  after(async () => {
    for (const other of stores) await other.close();
    await store.close();
    await raw.close();
    await server.stop();
  });

  const HOSTILE_REFS = [
    "../x",
    "../../etc/passwd",
    "*",
    ">",
    "QQ.*",
    "QQ.>",
    "spec.*",
    "01aaaaaaaaaaaaaaaaaaaaaaaa.x",
    "a.b.c",
    ".",
    "x".repeat(100_000),
    "abc\0def",
    "01aaaaaaaaaaaaaaaaaaaaaa\0*",
    " ",
  ];

  test("hostile ids are refused by every verb before any request reaches the server", async () => {
    const spy = await RequestSpy.start(raw);
    const { id } = await store.create({ prompt: "the one real task", parent: null });
    await raw.flush();
    const before = spy.seen.length;
    assert.ok(before > 0, "the spy sees the requests of the store's own connection");
    for (const ref of HOSTILE_REFS) {
      const refused = oneOf(["BAD_TASK_ID", "TASK_NOT_FOUND"]);
      await assert.rejects(store.resolve(ref), refused);
      await assert.rejects(store.get(ref), refused);
      await assert.rejects(store.send(ref, "hello"), refused);
      await assert.rejects(store.cancel(ref), refused);
      await assert.rejects(store.attach(ref), refused);
      await assert.rejects(store.messages(ref), refused);
      await assert.rejects(store.wait(ref, { timeoutMs: 1 }), refused);
      await assert.rejects(store.create({ prompt: "x", parent: null }, { id: ref }), refused);
    }
    await raw.flush();
    assert.deepEqual(spy.seen.slice(before), [], "no hostile id reached the server");
    assert.deepEqual(
      (await store.list()).map((t) => t.id),
      [id],
    );
  });

  test("a hostile asker or sender id is refused and never names a key", async () => {
    const spy = await RequestSpy.start(raw);
    const { id } = await store.create({ prompt: "asked about by strangers", parent: null });
    for (const by of ["QQ.*", "QQ.>", "../QQ", "QQ\0"]) {
      await assert.rejects(store.cancel(id, { by }), code("BAD_TASK_ID"));
      await assert.rejects(store.wait(id, { by, timeoutMs: 1 }), code("BAD_TASK_ID"));
      await assert.rejects(store.approve(id, 1, "allow", { by }), code("BAD_TASK_ID"));
      await assert.rejects(store.send(id, "hi", { from: by }), code("BAD_TASK_ID"));
    }
    await raw.flush();
    assert.deepEqual(
      spy.seen.filter((line) => line.includes("QQ")),
      [],
    );
    assert.deepEqual(await store.messages(id), [], "no refused message was kept");
  });

  test("torn and planted entries are STORE_CORRUPT and never hide the other tasks from list", async () => {
    const good = await store.create({ prompt: "a task nobody damaged", parent: null });
    const damaged = async (label: string, plant: (id: string) => Promise<unknown>) => {
      const { id } = await store.create({ prompt: `damaged: ${label}`, parent: null });
      await plant(id);
      return id;
    };
    const garbageRun = await damaged("garbage run record", (id) => kv.put(`run.${id}`, "{torn"));
    const wrongTypes = await damaged("run record of wrong types", (id) =>
      kv.put(`run.${id}`, JSON.stringify({ attempts: "1", messages: -1, approvals: null })),
    );
    const hugeRun = await damaged("huge run record", (id) =>
      kv.put(
        `run.${id}`,
        JSON.stringify({ attempts: 0, messages: 0, approvals: 0, pad: "x".repeat(1_000_000) }),
      ),
    );
    const notASpec = await damaged("spec that is not a spec", (id) =>
      kv.put(`spec.${id}`, JSON.stringify({ version: 1, id, hello: "world" })),
    );
    const otherSpec = await damaged("spec of another task", (id) =>
      store.get(good.id).then(({ spec }) => kv.put(`spec.${id}`, JSON.stringify(spec))),
    );
    const hugeSpec = await damaged("huge spec", (id) =>
      store.get(id).then(({ spec }) => {
        const { prompt: _prompt, ...stored } = spec;
        return kv.put(
          `spec.${id}`,
          JSON.stringify({ ...stored, title: "t".repeat(FLEET_LIMITS.specEntryBytes) }),
        );
      }),
    );
    for (const id of [garbageRun, wrongTypes, hugeRun, notASpec, otherSpec, hugeSpec]) {
      await assert.rejects(store.get(id), code("STORE_CORRUPT"), `get of ${id}`);
      await assert.rejects(store.attach(id), code("STORE_CORRUPT"), `attach of ${id}`);
    }
    for (const id of [garbageRun, wrongTypes, hugeRun]) {
      await assert.rejects(store.send(id, "hello"), code("STORE_CORRUPT"));
      await assert.rejects(store.cancel(id), code("STORE_CORRUPT"));
    }

    const planted = await store.create({
      prompt: "its inbox and prompts are planted",
      parent: null,
    });
    await kv.put(`msg.${planted.id}.1`, JSON.stringify({ n: 1, body: 42 }));
    await assert.rejects(store.messages(planted.id), code("STORE_CORRUPT"));
    await assert.rejects(store.get(planted.id), code("STORE_CORRUPT"));
    await kv.put(`msg.${planted.id}.1`, "[" + "1,".repeat(400_000) + "1]");
    await assert.rejects(store.messages(planted.id), code("STORE_CORRUPT"));
    await kv.put(`msg.${planted.id}.1`, "\u0000\uffff not json");
    await assert.rejects(store.messages(planted.id), code("STORE_CORRUPT"));
    await kv.delete(`msg.${planted.id}.1`);
    await kv.put(`ask.${planted.id}.1`, JSON.stringify({ n: 1, tool: "Bash" }));
    await assert.rejects(store.approvals(planted.id), code("STORE_CORRUPT"));
    await assert.rejects(store.approve(planted.id, 1, "allow"), code("STORE_CORRUPT"));
    await kv.put("waits", JSON.stringify([{ from: "*", to: ">", until: "never" }]));
    const child = await store.create({ prompt: "waits across trees", parent: null });
    const other = await store.create({ prompt: "waited on", parent: null });
    await assert.rejects(
      store.wait(other.id, { by: child.id, timeoutMs: 1 }),
      code("STORE_CORRUPT"),
    );
    await kv.delete("waits");

    const listed = new Set((await store.list()).map((t) => t.id));
    for (const id of [garbageRun, wrongTypes, hugeRun, notASpec, otherSpec, hugeSpec]) {
      assert.ok(!listed.has(id), `the damaged task ${id} is left out of the list`);
    }
    for (const id of [good.id, child.id, other.id]) assert.ok(listed.has(id), `${id} is listed`);
    assert.equal((await store.get(good.id)).state, "created");
  });

  test("a flood of sends from several connections keeps the inbox's bound exactly", async () => {
    for (let i = 0; i < SENDERS; i++) {
      stores.push(await FleetStore.open({ servers: server.url, env: {} }));
    }
    const { id } = await store.create({ prompt: "flooded with messages", parent: null });
    const attempts = stores.flatMap((sender, s) =>
      Array.from({ length: SENDS_EACH }, (_, i) => ({ sender, body: `from ${s}, number ${i}` })),
    );
    const results = await Promise.allSettled(attempts.map((a) => a.sender.send(id, a.body)));
    const sent = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const refused = results.flatMap((r) =>
      r.status === "rejected" ? [r.reason as { code?: string }] : [],
    );
    assert.equal(sent.length, STORE_LIMITS.inboxMessages);
    assert.deepEqual([...new Set(refused.map((e) => e.code))], ["INBOX_FULL"]);
    const kept = await store.messages(id);
    assert.deepEqual(
      kept.map((m) => m.n),
      Array.from({ length: STORE_LIMITS.inboxMessages }, (_, i) => i + 1),
    );
    assert.deepEqual(
      kept.map((m) => m.body).sort(),
      sent.map((m) => m.body).sort(),
      "every accepted message is kept once, and no refused one",
    );
    assert.equal(new Set(kept.map((m) => m.body)).size, kept.length);
  });

  test("a flood of events stops at the filesystem's bound with one log_full notice, across attaches", async () => {
    const { id } = await store.create({ prompt: "floods its events", parent: null });
    const first = await store.attach(id);
    const pad = "e".repeat(STORE_LIMITS.eventBytes - 100);
    let kept = 0;
    for (;;) {
      const seq = await first.appendEvent("step", { pad });
      if (seq === undefined) break;
      kept = seq;
      assert.ok(kept < FLEET_LIMITS.eventsBytes / 1000, "the flood was stopped");
    }
    assert.equal(await first.appendEvent("step", { pad: "small" }), undefined);
    await first.release();
    const second = await store.attach(id);
    assert.equal(second.attempt, 2);
    assert.equal(
      await second.appendEvent("step", { pad: "after the bound" }),
      undefined,
      "a new holder continues the count",
    );
    const record = await second.finish({ state: "succeeded" });
    const events: TaskEvent[] = await eventsOf(store, id);
    const bytes = events.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)) + 1, 0);
    assert.ok(bytes <= FLEET_LIMITS.eventsBytes, `${bytes} bytes are within the bound`);
    assert.equal(events.filter((e) => e.type === "log_full").length, 1);
    assert.equal(events.at(-1)?.type, "log_full");
    assert.equal(events.filter((e) => e.pad === "after the bound").length, 0);
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i + 1),
    );
    assert.equal(record.lastSeq, events.length);
  });
});
