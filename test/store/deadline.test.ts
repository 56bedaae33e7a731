// Deadlines: every task has one, none is more than 30 days away, no child outlives its parent,
// and a task found past its deadline is recorded failed/deadline instead of run again.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { parseDuration, STORE_LIMITS } from "../../src/store/index.js";
import { sleep, tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;
const HOUR = 3_600_000;

test("durations read as people write them", () => {
  assert.equal(parseDuration("90s"), 90_000);
  assert.equal(parseDuration("1h30m"), 5_400_000);
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("2d"), 2 * 24 * HOUR);
  assert.equal(parseDuration("1.5h"), 1.5 * HOUR);
  assert.equal(parseDuration("soon"), undefined);
  assert.equal(parseDuration("10"), undefined);
});

test("a task without a deadline gets one hour; one given as a duration or a time is kept", async () => {
  const before = Date.now();
  const plain = await store.tasks.create({ prompt: "default" });
  assert.ok(Math.abs(plain.deadline - (before + STORE_LIMITS.defaultDeadlineMs)) < 1000);
  const inTwo = await store.tasks.create({ prompt: "two hours", deadline: "2h" });
  assert.ok(Math.abs(inTwo.deadline - (before + 2 * HOUR)) < 1000);
  const at = Date.now() + 3 * HOUR;
  assert.equal((await store.tasks.create({ prompt: "at", deadline: at })).deadline, at);
  const iso = new Date(at).toISOString();
  assert.equal((await store.tasks.create({ prompt: "iso", deadline: iso })).deadline, at);
});

test("a deadline more than 30 days away, in the past, or not a time is refused", async () => {
  await assert.rejects(
    store.tasks.create({ prompt: "x", deadline: "31d" }),
    code("DEADLINE_TOO_FAR"),
  );
  await assert.rejects(
    store.tasks.create({ prompt: "x", deadline: Date.now() - 1000 }),
    code("BAD_DEADLINE"),
  );
  await assert.rejects(store.tasks.create({ prompt: "x", deadline: 5000 }), code("BAD_DEADLINE"));
  await assert.rejects(
    store.tasks.create({ prompt: "x", deadline: "later" }),
    code("BAD_DEADLINE"),
  );
  assert.ok(await store.tasks.create({ prompt: "x", deadline: "30d" }));
});

test("a child never outlives its parent's deadline", async () => {
  const parent = await store.tasks.create({ prompt: "parent", deadline: "1h" });
  const longer = await store.tasks.create({
    prompt: "wants 2h",
    parent: parent.id,
    deadline: "2h",
  });
  assert.equal(longer.deadline, parent.deadline);
  const plain = await store.tasks.create({
    prompt: "wants the default",
    parent: parent.id,
    deadline: "3h",
  });
  const grandchild = await store.tasks.create({
    prompt: "deeper",
    parent: plain.id,
    deadline: "20d",
  });
  assert.equal(grandchild.deadline, parent.deadline);
  const shorter = await store.tasks.create({
    prompt: "wants 10m",
    parent: parent.id,
    deadline: "10m",
  });
  assert.ok(shorter.deadline < parent.deadline);
});

/** A store whose clock the test moves, as if hours went by. */
async function storeWithClock() {
  const clock = { now: Date.now() };
  const tasks = await store.open({ now: () => clock.now });
  return { tasks, clock };
}

test("a task past its deadline is recorded failed/deadline on the next attach", async () => {
  const { tasks, clock } = await storeWithClock();
  const { id } = await tasks.create({ prompt: "too slow", deadline: "1h" });
  const run = await tasks.attach(id);
  assert.equal(run.deadlinePassed(), false);
  run.release();
  clock.now += 2 * HOUR;
  assert.equal((await tasks.get(id)).state, "interrupted");
  const refusal = await tasks.attach(id).then(
    () => assert.fail("a task past its deadline was attached"),
    (error: unknown) =>
      error as { code: string; exitClass: string; terminal: { state: string; stoppedBy: string } },
  );
  assert.equal(refusal.code, "DEADLINE_PASSED");
  assert.equal(refusal.exitClass, "bound");
  assert.equal(refusal.terminal.state, "failed");
  assert.equal(refusal.terminal.stoppedBy, "deadline");
  const now = await tasks.get(id);
  assert.equal(now.state, "failed");
  assert.equal(now.stoppedBy, "deadline");
  // The record stands: a later attach is refused as finished.
  await assert.rejects(tasks.attach(id), code("TASK_FINISHED"));
});

test("a child whose parent's deadline passed is recorded failed/deadline too", async () => {
  const { tasks, clock } = await storeWithClock();
  const parent = await tasks.create({ prompt: "parent", deadline: "1h" });
  const child = await tasks.create({ prompt: "child", parent: parent.id, deadline: "5h" });
  clock.now += 90 * 60_000;
  await assert.rejects(tasks.attach(child.id), code("DEADLINE_PASSED"));
  assert.equal((await tasks.get(child.id)).stoppedBy, "deadline");
});

test("a wait on a task nobody runs ends at its deadline with failed/deadline", async () => {
  const { tasks, clock } = await storeWithClock();
  const { id } = await tasks.create({ prompt: "orphan", deadline: "1h" });
  const run = await tasks.attach(id);
  run.release();
  const waiting = tasks.wait(id, { timeoutMs: 3 * HOUR });
  await sleep(20);
  clock.now += 2 * HOUR;
  const outcome = await waiting;
  assert.equal(outcome.kind, "finished");
  assert.equal(outcome.terminal.stoppedBy, "deadline");
});
