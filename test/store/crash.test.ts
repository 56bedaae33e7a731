// An executor killed with SIGKILL leaves a task the next attacher can run again: the kernel
// frees the lock at once, the events go on from the last whole line, and every waiter gets the
// one terminal record.
import { strict as assert } from "node:assert";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { TaskEvent } from "../../src/store/index.js";
import { Fixture, tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

test("a task whose executor is killed reads interrupted at once, runs again, and every wait returns the same record", async () => {
  const { id } = await store.tasks.create({ prompt: "survive a crash" });
  const first = new Fixture("executor", [store.dataDir, id, "100", "hang-with-child"]);
  const [word, pid, attempt] = (await first.line()).split(" ");
  assert.deepEqual([word, Number(pid), attempt], ["attached", first.child.pid, "1"]);
  assert.equal(await first.line(), "appended 100");
  const grandchild = Number((await first.line()).split(" ")[1]);

  const running = await store.tasks.get(id);
  assert.equal(running.state, "running");
  assert.equal(running.holder?.pid, first.child.pid);

  first.kill("SIGKILL");
  assert.equal((await first.exited).signal, "SIGKILL");
  // No grace period and no pid check: the lock went with the process, even though a process
  // it started lives on (the lock's descriptor is close-on-exec).
  assert.doesNotThrow(() => process.kill(grandchild, 0));
  assert.equal((await store.tasks.get(id)).state, "interrupted");
  process.kill(grandchild, "SIGKILL");

  // As if the dead executor had been cut off in the middle of a line.
  appendFileSync(join(store.dataDir, "tasks", id, "events.jsonl"), '{"seq":102,"at":1,"ty');

  const waiter = new Fixture("waiter", [store.dataDir, id, "3"]);
  const second = new Fixture("executor", [store.dataDir, id, "5", "finish"]);
  assert.match(await second.line(), /^attached \d+ 2$/);
  assert.equal(await second.line(), "appended 5");
  const record = await second.json();
  assert.equal(record.state, "succeeded");
  assert.equal(record.attempts, 2);

  const outcomes = [await waiter.json(), await waiter.json(), await waiter.json()];
  for (const outcome of outcomes) assert.deepEqual(outcome, { kind: "finished", terminal: record });
  assert.equal((await waiter.exited).code, 0);

  // seq went on after the crash, the torn line was dropped, and nothing was yielded twice.
  const events: TaskEvent[] = [];
  for await (const event of store.tasks.watch(id)) events.push(event);
  assert.deepEqual(
    events.map((e) => e.seq),
    Array.from({ length: 108 }, (_, i) => i + 1),
  );
  assert.deepEqual(
    events.filter((e) => e.type === "attached").map((e) => [e.seq, e.attempt]),
    [
      [1, 1],
      [102, 2],
    ],
  );
  assert.equal(events.at(-1)?.type, "finished");
  assert.equal(record.lastSeq, 108);
});
