// Suspension in the store: only a running task can be asked to suspend; the executor's record
// makes it `suspended` once it lets go, and nothing else does; the next attach ends the
// suspension; the deadline still holds; a cancel ends a suspended task at once.
import { strict as assert } from "node:assert";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { isExpired } from "../../src/store/index.js";
import { sleep, tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;
const dir = (id: string) => join(store.dataDir, "tasks", id);

test("only a running task can be asked to suspend, and the request is written once", async () => {
  const task = await store.tasks.create({ prompt: "suspend me" });
  await assert.rejects(store.tasks.suspend(task.id), code("NOT_SUSPENDABLE"));
  const attachment = await store.tasks.attach(task.id);
  try {
    const first = await store.tasks.suspend(task.id, { now: true });
    assert.equal(first.requested, true);
    assert.equal(first.request.now, true);
    assert.equal((await store.tasks.suspend(task.id)).requested, false);
    assert.equal(attachment.suspendRequest()?.now, true);
    assert.equal((await store.tasks.get(task.id)).state, "running", "a request is not a state");
  } finally {
    attachment.release();
  }
});

test("the executor's record makes the task suspended once it lets go; the next attach ends the suspension", async () => {
  const task = await store.tasks.create({ prompt: "pause" });
  const attachment = await store.tasks.attach(task.id);
  await store.tasks.suspend(task.id);
  const resumeAt = Date.now() + 60_000;
  const record = await attachment.suspend({ reason: "usage_limit", resumeAt, detail: "resets" });
  assert.equal(record.resumeAt, resumeAt);
  assert.equal(attachment.released, true);
  assert.ok(!existsSync(join(dir(task.id), "suspend")), "the request was honoured");
  const details = await store.tasks.get(task.id);
  assert.equal(details.state, "suspended");
  assert.equal(details.suspension?.reason, "usage_limit");
  assert.equal(details.suspension.resumeAt, resumeAt);
  assert.equal(details.resumeWaiter, false);
  assert.deepEqual(
    (await store.tasks.list({ states: ["suspended"] })).map((t) => t.id),
    [task.id],
  );

  const waiter = await store.tasks.holdResumeWait(task.id);
  assert.ok(waiter !== undefined);
  assert.equal((await store.tasks.get(task.id)).resumeWaiter, true);
  assert.equal(await store.tasks.holdResumeWait(task.id), undefined, "one waiter at a time");
  waiter.release();

  const again = await store.tasks.attach(task.id);
  try {
    assert.equal(again.attempt, 2);
    assert.equal(again.resumed, "usage_limit", "the attach knows which suspension it ended");
    assert.equal((await store.tasks.get(task.id)).state, "running");
    assert.ok(!existsSync(join(dir(task.id), "suspended.json")));
    const events = [];
    for await (const e of store.tasks.watch(task.id, { follow: false })) events.push(e);
    assert.deepEqual(
      events.map((e) => [e.type, e.resumed]),
      [
        ["attached", undefined],
        ["suspended", undefined],
        ["attached", "usage_limit"],
      ],
    );
  } finally {
    again.release();
  }
  assert.equal((await store.tasks.get(task.id)).state, "interrupted", "its suspension ended");
});

test("a stale request to suspend dies with the run it was made for", async () => {
  const task = await store.tasks.create({ prompt: "stale" });
  const first = await store.tasks.attach(task.id);
  await store.tasks.suspend(task.id);
  first.release();
  const second = await store.tasks.attach(task.id);
  try {
    assert.equal(second.suspendRequest(), undefined);
  } finally {
    second.release();
  }
});

test("a suspended task past its deadline is expired, and an attach records it failed (deadline)", async () => {
  const task = await store.tasks.create({ prompt: "late", deadline: "1s" });
  const attachment = await store.tasks.attach(task.id);
  await attachment.suspend({ reason: "request" });
  await sleep(1100);
  const details = await store.tasks.get(task.id);
  assert.equal(details.state, "suspended");
  assert.ok(isExpired(details, Date.now()));
  await assert.rejects(store.tasks.attach(task.id), code("DEADLINE_PASSED"));
  const ended = await store.tasks.get(task.id);
  assert.equal(ended.state, "failed");
  assert.equal(ended.stoppedBy, "deadline");
});

test("cancelling a suspended task records it cancelled at once", async () => {
  const task = await store.tasks.create({ prompt: "cancel me" });
  const attachment = await store.tasks.attach(task.id);
  await attachment.suspend({ reason: "request" });
  const outcome = await store.tasks.cancel(task.id);
  assert.deepEqual(outcome.recorded, [task.id]);
  assert.equal((await store.tasks.get(task.id)).state, "cancelled");
});

test("a suspended.json nobody's executor wrote is refused as damaged, and a planted one is no state of a task never attached", async () => {
  const fresh = await store.tasks.create({ prompt: "never ran" });
  writeFileSync(
    join(dir(fresh.id), "suspended.json"),
    JSON.stringify({ reason: "request", at: 1, lastSeq: 0 }),
  );
  assert.equal((await store.tasks.get(fresh.id)).state, "created");

  const task = await store.tasks.create({ prompt: "damaged" });
  (await store.tasks.attach(task.id)).release();
  writeFileSync(join(dir(task.id), "suspended.json"), '{"reason":"nap","at":1,"lastSeq":0}');
  await assert.rejects(store.tasks.get(task.id), code("STORE_CORRUPT"));
  // The attach that runs it again removes the damaged record.
  (await store.tasks.attach(task.id)).release();
  assert.equal((await store.tasks.get(task.id)).state, "interrupted");
});
