// Task trees: a parent never records its end before its attached children have theirs, and
// hops are counted down the tree.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { MAX_HOP } from "../../src/protocol/index.js";
import { Tasks } from "../../src/store/index.js";
import { Fixture, sleep, tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

test("a parent's finish waits for its running child to record its end first", async () => {
  const parent = await store.tasks.create({ prompt: "parent" });
  const child = await store.tasks.create({ prompt: "child", parent: parent.id });
  const runParent = await store.tasks.attach(parent.id);
  const runChild = await store.tasks.attach(child.id);
  let parentDone = false;
  const finishing = runParent.finish({ state: "succeeded" }, { childWaitMs: 10_000 }).then((r) => {
    parentDone = true;
    return r;
  });
  await sleep(150);
  assert.equal(parentDone, false);
  assert.equal((await store.tasks.get(parent.id)).state, "running");
  const childEnd = await runChild.finish({ state: "succeeded" });
  const parentEnd = await finishing;
  assert.ok(parentEnd.at >= childEnd.at);
});

test("a parent whose child still runs after the wait is refused, and may finish later", async () => {
  const parent = await store.tasks.create({ prompt: "parent" });
  const child = await store.tasks.create({ prompt: "child", parent: parent.id });
  const runParent = await store.tasks.attach(parent.id);
  const worker = new Fixture("executor", [store.dataDir, child.id, "1", "hang"]);
  assert.match(await worker.line(), /^attached /);
  await assert.rejects(
    runParent.finish({ state: "succeeded" }, { childWaitMs: 50 }),
    (e: unknown) => {
      assert.equal((e as { code?: string }).code, "CHILDREN_RUNNING");
      assert.deepEqual((e as { children?: string[] }).children, [child.id]);
      return true;
    },
  );
  assert.equal((await store.tasks.get(parent.id)).state, "running");
  // The child's executor dies: it no longer runs, so the parent may end.
  worker.kill("SIGKILL");
  await worker.exited;
  assert.equal((await runParent.finish({ state: "succeeded" })).state, "succeeded");
  assert.equal((await store.tasks.get(child.id)).state, "interrupted");
});

test("a child attached after its parent finished is recorded cancelled instead of run", async () => {
  const parent = await store.tasks.create({ prompt: "parent" });
  const child = await store.tasks.create({ prompt: "never started", parent: parent.id });
  const runParent = await store.tasks.attach(parent.id);
  await runParent.finish({ state: "succeeded" });
  await assert.rejects(store.tasks.attach(child.id), code("TASK_FINISHED"));
  const end = await store.tasks.get(child.id);
  assert.equal(end.state, "cancelled");
  assert.match(end.terminal?.error ?? "", /parent finished/);
});

test("each task created from inside another goes one hop further; past 8 it is refused", async () => {
  let parent = (await store.tasks.create({ prompt: "hop 0" })).id;
  for (let hop = 1; hop <= MAX_HOP; hop++) {
    const inside = await Tasks.open({ dataDir: store.dataDir, env: { WARDEN_TASK_ID: parent } });
    const child = await inside.create({ prompt: `hop ${hop}` });
    assert.equal(child.hop, hop);
    assert.equal(child.parent, parent);
    parent = child.id;
  }
  const deepest = await Tasks.open({ dataDir: store.dataDir, env: { WARDEN_TASK_ID: parent } });
  await assert.rejects(deepest.create({ prompt: "hop 9" }), code("HOP_TOO_DEEP"));
  // A root made from inside a task still carries the hop on.
  await assert.rejects(
    deepest.create({ prompt: "hop 9, as a root", parent: null }),
    code("HOP_TOO_DEEP"),
  );
  await assert.rejects(store.tasks.create({ prompt: "hop 9", hop: 9 }), code("HOP_TOO_DEEP"));
});
