// watch: every event exactly once, in order, whole lines only, history first, then live.
import { strict as assert } from "node:assert";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { TaskEvent } from "../../src/store/index.js";
import { Fixture, sleep, tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

interface WatchReport {
  count: number;
  gaps: number;
  first: number;
  last: number;
  types: string[];
}

test("watchers in other processes get 10,000 events exactly once and in order, a late one history first", async () => {
  const { id } = await store.tasks.create({ prompt: "write many events" });
  const early = new Fixture("watcher", [store.dataDir, id, "0"]);
  const fromMiddle = new Fixture("watcher", [store.dataDir, id, "2500"]);
  assert.equal(await early.line(), "watching");
  assert.equal(await fromMiddle.line(), "watching");

  const attachment = await store.tasks.attach(id);
  const write = async (from: number, to: number): Promise<void> => {
    for (let i = from; i <= to; i++) {
      attachment.appendEvent("step", { i, text: "x".repeat(i % 200) });
      if (i % 250 === 0) await sleep(1);
    }
  };
  await write(1, 5000);
  // This one starts when half the events are written: it must get them first, then the rest.
  const late = new Fixture("watcher", [store.dataDir, id, "0"]);
  assert.equal(await late.line(), "watching");
  await write(5001, 10_000);
  const record = await attachment.finish({ state: "succeeded" });
  assert.equal(record.lastSeq, 10_002);

  const whole = {
    count: 10_002,
    gaps: 0,
    first: 1,
    last: 10_002,
    types: ["attached", "finished", "step"],
  };
  assert.deepEqual(await early.json<WatchReport>(), whole);
  assert.deepEqual(await late.json<WatchReport>(), whole);
  assert.deepEqual(await fromMiddle.json<WatchReport>(), {
    ...whole,
    count: 10_002 - 2500,
    first: 2501,
    types: ["finished", "step"],
  });
  // A watcher that starts after the end gets the whole history and ends.
  const afterEnd = new Fixture("watcher", [store.dataDir, id, "0"]);
  assert.equal(await afterEnd.line(), "watching");
  assert.deepEqual(await afterEnd.json<WatchReport>(), whole);
});

test("a half-written line is never yielded; it is once it is whole", async () => {
  const { id } = await store.tasks.create({ prompt: "torn lines" });
  const attachment = await store.tasks.attach(id);
  const events: TaskEvent[] = [];
  const controller = new AbortController();
  const watching = (async () => {
    for await (const event of store.tasks.watch(id, { signal: controller.signal })) {
      events.push(event);
    }
  })();
  const file = join(store.dataDir, "tasks", id, "events.jsonl");
  appendFileSync(file, '{"seq":2,"at":1,"type":"half"');
  await sleep(100);
  assert.deepEqual(
    events.map((e) => e.type),
    ["attached"],
  );
  appendFileSync(file, ',"done":true}\n');
  for (let i = 0; i < 100 && events.length < 2; i++) await sleep(10);
  assert.deepEqual(events[1], { seq: 2, at: 1, type: "half", done: true });
  controller.abort();
  await watching;
  attachment.release();
});

test(
  "watch without follow stops at the end of the file; an abort ends a following watch",
  { timeout: 10_000 },
  async () => {
    const { id } = await store.tasks.create({ prompt: "stop watching" });
    const attachment = await store.tasks.attach(id);
    attachment.appendEvent("one");
    const seen: number[] = [];
    for await (const e of store.tasks.watch(id, { follow: false })) seen.push(e.seq);
    assert.deepEqual(seen, [1, 2]);

    const controller = new AbortController();
    setTimeout(() => {
      controller.abort();
    }, 50);
    const live: number[] = [];
    for await (const e of store.tasks.watch(id, { since: 2, signal: controller.signal })) {
      live.push(e.seq);
    }
    assert.deepEqual(live, []);
    attachment.release();
  },
);

test("a watch of a task that has not started waits for its first event", async () => {
  const { id } = await store.tasks.create({ prompt: "not yet" });
  const first = (async () => {
    for await (const e of store.tasks.watch(id)) return e;
    return undefined;
  })();
  await sleep(50);
  const attachment = await store.tasks.attach(id);
  assert.equal((await first)?.type, "attached");
  attachment.release();
});
