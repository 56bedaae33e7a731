// remove refuses a running task; gc removes finished tasks past an age, children first, and
// never a task that still has a child it keeps.
import { strict as assert } from "node:assert";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;
const DAY = 86_400_000;

test("a running task cannot be removed; a created or finished one can", async () => {
  const { id } = await store.tasks.create({ prompt: "busy" });
  const run = await store.tasks.attach(id);
  await assert.rejects(store.tasks.remove(id), code("TASK_RUNNING"));
  await run.finish({ state: "succeeded" });
  assert.deepEqual(await store.tasks.remove(id), [id]);
  await assert.rejects(store.tasks.get(id), code("TASK_NOT_FOUND"));
  const idle = await store.tasks.create({ prompt: "never ran" });
  assert.deepEqual(await store.tasks.remove(idle.id), [idle.id]);
  assert.deepEqual(readdirSync(join(store.dataDir, "tmp")), []);
});

test("a task with children is removed only with its whole tree, and never while one runs", async () => {
  const root = await store.tasks.create({ prompt: "root" });
  const child = await store.tasks.create({ prompt: "child", parent: root.id });
  const grandchild = await store.tasks.create({ prompt: "grandchild", parent: child.id });
  await assert.rejects(store.tasks.remove(root.id), code("HAS_CHILDREN"));
  const run = await store.tasks.attach(grandchild.id);
  await assert.rejects(store.tasks.remove(root.id, { recursive: true }), code("TASK_RUNNING"));
  assert.ok(existsSync(join(store.dataDir, "tasks", root.id)));
  run.release();
  assert.deepEqual(await store.tasks.remove(root.id, { recursive: true }), [
    grandchild.id,
    child.id,
    root.id,
  ]);
});

test("removing a child takes it out of its parent's children", async () => {
  const parent = await store.tasks.create({ prompt: "parent" });
  const child = await store.tasks.create({ prompt: "child", parent: parent.id });
  assert.deepEqual((await store.tasks.get(parent.id)).children, [child.id]);
  await store.tasks.remove(child.id);
  assert.deepEqual((await store.tasks.get(parent.id)).children, []);
  assert.deepEqual(await store.tasks.remove(parent.id), [parent.id]);
});

test("gc removes tasks finished or expired longer ago than the age, and keeps the rest", async () => {
  const fresh = await tempStore();
  try {
    const t = fresh.tasks;
    const finish = async (id: string) => (await t.attach(id)).finish({ state: "succeeded" });
    const oldRoot = await t.create({ prompt: "old root" });
    const oldChild = await t.create({ prompt: "old child", parent: oldRoot.id });
    // Unfinished tasks that can still run (their deadline is ahead ten days on) are kept; one
    // past its deadline with nobody running it is expired, and its deadline counts as its end.
    const live = { deadline: "20d" };
    const keptParent = await t.create({ prompt: "parent of a live child", ...live });
    const liveChild = await t.create({ prompt: "live child", parent: keptParent.id, ...live });
    const unfinished = await t.create({ prompt: "never finished", ...live });
    const expired = await t.create({ prompt: "expired", deadline: "1d" });
    await finish(oldChild.id);
    await finish(oldRoot.id);
    await finish(keptParent.id);
    // Ten days on, with an age of a week.
    const later = await Tasks.open({
      dataDir: fresh.dataDir,
      env: {},
      now: () => Date.now() + 10 * DAY,
    });
    const outcome = await later.gc({ olderThan: "7d" });
    // Children go first; two roots made in the same millisecond may come in either order.
    assert.equal(outcome.removed[0], oldChild.id);
    assert.deepEqual(outcome.removed.slice(1).sort(), [oldRoot.id, expired.id].sort());
    assert.deepEqual(
      (await t.list()).map((s) => s.id),
      [keptParent.id, liveChild.id, unfinished.id],
    );
    // Nothing is old enough at the real time.
    assert.deepEqual((await t.gc({ olderThan: 60_000 })).removed, []);
    await assert.rejects(t.gc({ olderThan: "whenever" }), code("BAD_DEADLINE"));
  } finally {
    await fresh.cleanup();
  }
});
