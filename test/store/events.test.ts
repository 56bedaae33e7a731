// events.jsonl: one writer, seq going on across attaches, each event at most 32 KiB and the
// file at most 32 MiB, after which one notice says the rest was dropped.
import { strict as assert } from "node:assert";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { STORE_LIMITS, type TaskEvent } from "../../src/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

async function allEvents(id: string): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const e of store.tasks.watch(id, { follow: false })) out.push(e);
  return out;
}

test("an event is a JSON line with seq, at and type, and its own fields after them", async () => {
  const { id } = await store.tasks.create({ prompt: "log" });
  const run = await store.tasks.attach(id);
  const before = Date.now();
  assert.equal(run.appendEvent("tool_use", { name: "bash", ok: true }), 2);
  const lines = readFileSync(join(store.dataDir, "tasks", id, "events.jsonl"), "utf8").split("\n");
  const line = lines[1] ?? "";
  assert.match(line, /^\{"seq":2,"at":\d+,"type":"tool_use","name":"bash","ok":true\}$/);
  assert.ok((JSON.parse(line) as TaskEvent).at >= before);
  run.release();
});

test("events over 32 KiB, with reserved fields, or of the store's own types are refused", async () => {
  const { id } = await store.tasks.create({ prompt: "log" });
  const run = await store.tasks.attach(id);
  const overhead = JSON.stringify({ seq: 2, at: Date.now(), type: "t", text: "" }).length;
  assert.equal(run.appendEvent("t", { text: "x".repeat(STORE_LIMITS.eventBytes - overhead) }), 2);
  assert.throws(
    () => run.appendEvent("t", { text: "x".repeat(STORE_LIMITS.eventBytes - overhead + 1) }),
    code("EVENT_TOO_BIG"),
  );
  assert.throws(() => run.appendEvent("t", { seq: 7 }), code("BAD_EVENT"));
  assert.throws(() => run.appendEvent("finished"), code("BAD_EVENT"));
  assert.throws(() => run.appendEvent("two words"), code("BAD_EVENT"));
  assert.throws(() => run.appendEvent(""), code("BAD_EVENT"));
  // Refused events take no seq.
  assert.equal(run.appendEvent("t"), 3);
  run.release();
});

test("seq goes on after a task is attached again", async () => {
  const { id } = await store.tasks.create({ prompt: "twice" });
  const first = await store.tasks.attach(id);
  first.appendEvent("a");
  first.appendEvent("b");
  first.release();
  const second = await store.tasks.attach(id);
  assert.equal(second.attempt, 2);
  assert.equal(second.appendEvent("c"), 5);
  await second.finish({ state: "succeeded" });
  assert.deepEqual(
    (await allEvents(id)).map((e) => `${e.seq}:${e.type}`),
    ["1:attached", "2:a", "3:b", "4:attached", "5:c", "6:finished"],
  );
  assert.throws(() => second.appendEvent("late"), code("ATTACHMENT_CLOSED"));
});

test("the file stops at 32 MiB with one log_full notice, also across attaches", async () => {
  const { id } = await store.tasks.create({ prompt: "flood" });
  const run = await store.tasks.attach(id);
  const text = "y".repeat(STORE_LIMITS.eventBytes - 100);
  let dropped = 0;
  let written = 0;
  for (let i = 0; i < 1100; i++) {
    if (run.appendEvent("flood", { text }) === undefined) dropped++;
    else written++;
  }
  assert.ok(written > 1000 && dropped > 0, `${written} written, ${dropped} dropped`);
  run.release();
  const again = await store.tasks.attach(id);
  assert.equal(again.appendEvent("more"), undefined);
  const end = await again.finish({ state: "succeeded" });
  const file = join(store.dataDir, "tasks", id, "events.jsonl");
  assert.ok(statSync(file).size <= STORE_LIMITS.eventsFileBytes);
  const events = await allEvents(id);
  assert.equal(events.filter((e) => e.type === "log_full").length, 1);
  assert.equal(events.at(-1)?.type, "log_full");
  assert.equal(end.lastSeq, events.at(-1)?.seq);
});
