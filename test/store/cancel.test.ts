// Cancel is downward only, and cancelling a task reaches every unfinished descendant.
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
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

const refusedAs = (edge: string) => (error: unknown) =>
  (error as { code?: string }).code === "CANCEL_NOT_ALLOWED" &&
  (error as { edge?: string }).edge === edge;

async function tree() {
  const t = store.tasks;
  const root = (await t.create({ prompt: "root" })).id;
  const a = (await t.create({ prompt: "a", parent: root })).id;
  const a1 = (await t.create({ prompt: "a1", parent: a })).id;
  const b = (await t.create({ prompt: "b", parent: root })).id;
  const b1 = (await t.create({ prompt: "b1", parent: b })).id;
  const other = (await t.create({ prompt: "another root" })).id;
  return { root, a, a1, b, b1, other };
}

test("a task cannot cancel its parent, an ancestor, a peer or another tree", async () => {
  const { root, a, a1, b, b1, other } = await tree();
  await assert.rejects(store.tasks.cancel(a, { by: a1 }), refusedAs("ancestor"));
  await assert.rejects(store.tasks.cancel(root, { by: a1 }), refusedAs("ancestor"));
  await assert.rejects(store.tasks.cancel(b, { by: a }), refusedAs("peer"));
  await assert.rejects(store.tasks.cancel(b1, { by: a1 }), refusedAs("peer"));
  await assert.rejects(store.tasks.cancel(other, { by: a }), refusedAs("other_tree"));
  // Nothing was marked by the refusals.
  for (const id of [root, a, b, b1, other]) {
    assert.equal((await store.tasks.get(id)).cancelRequested, false);
  }
  // The task the process runs in is the default asker.
  const insideA1 = await Tasks.open({ dataDir: store.dataDir, env: { WARDEN_TASK_ID: a1 } });
  await assert.rejects(insideA1.cancel(a), refusedAs("ancestor"));
});

test("a task may cancel itself and its descendants; outside any task, anything", async () => {
  const { root, a, a1, b, other } = await tree();
  assert.deepEqual((await store.tasks.cancel(a1, { by: a })).marked, [a1]);
  assert.deepEqual(
    (await store.tasks.cancel(b, { by: b })).marked.sort(),
    [b, (await store.tasks.get(b)).children[0]].sort(),
  );
  assert.deepEqual((await store.tasks.cancel(other, { by: null })).marked, [other]);
  const insideRoot = await Tasks.open({ dataDir: store.dataDir, env: { WARDEN_TASK_ID: root } });
  assert.ok((await insideRoot.cancel(a)).marked.includes(a));
});

test("cancelling a root marks every unfinished descendant and none of a finished one", async () => {
  const { root, a, a1, b, b1 } = await tree();
  // a finished (its child a1 was never started), b is running.
  const runA = await store.tasks.attach(a);
  await runA.finish({ state: "succeeded" });
  const runB = await store.tasks.attach(b);

  const outcome = await store.tasks.cancel(root);
  assert.deepEqual(outcome.marked.sort(), [root, a1, b, b1].sort());
  // Tasks nobody runs are recorded at once; root waits for its running child b.
  assert.deepEqual(outcome.recorded.sort(), [a1, b1].sort());
  assert.equal(existsSync(join(store.dataDir, "tasks", a, "cancel")), false);
  assert.equal((await store.tasks.get(a)).state, "succeeded");
  assert.equal((await store.tasks.get(a1)).state, "cancelled");
  assert.equal((await store.tasks.get(root)).state, "created");
  assert.equal((await store.tasks.get(root)).cancelRequested, true);

  // The executor of b sees the request and ends; a wait on root then records root's end.
  assert.equal(runB.cancelRequested(), true);
  const bEnd = await runB.finish({ state: "cancelled" });
  assert.deepEqual(bEnd.cancel, { by: null, at: bEnd.cancel?.at, target: root });
  const rootEnd = await store.tasks.wait(root, { timeoutMs: 5000 });
  assert.equal(rootEnd.kind === "finished" && rootEnd.terminal.state, "cancelled");

  // Cancelling a finished task changes nothing and says so.
  const again = await store.tasks.cancel(a);
  assert.deepEqual(again.marked, []);
  assert.equal(again.finished?.state, "succeeded");
});

test("a cancelling or finished task can have no new children", async () => {
  const parent = (await store.tasks.create({ prompt: "parent" })).id;
  const running = await store.tasks.attach(parent);
  await store.tasks.cancel(parent);
  await assert.rejects(
    store.tasks.create({ prompt: "late child", parent }),
    (e: unknown) => (e as { code?: string }).code === "TASK_CANCELLING",
  );
  await running.finish({ state: "cancelled" });
  await assert.rejects(
    store.tasks.create({ prompt: "later child", parent }),
    (e: unknown) => (e as { code?: string }).code === "PARENT_FINISHED",
  );
});
