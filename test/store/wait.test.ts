// Wait edges: outside any task anything; a task may wait on its descendants or on an
// independent root, never on itself, an ancestor, or a peer in its own tree; and two trees may
// not wait on each other.
import { strict as assert } from "node:assert";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import { Fixture, sleep, tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
let t: {
  root: string;
  a: string;
  a1: string;
  b: string;
  other: string;
  other1: string;
};

before(async () => {
  store = await tempStore();
  const c = (prompt: string, parent?: string) =>
    store.tasks.create(parent === undefined ? { prompt } : { prompt, parent }).then((s) => s.id);
  const root = await c("root");
  const a = await c("a", root);
  const a1 = await c("a1", a);
  const b = await c("b", root);
  const other = await c("an independent root");
  const other1 = await c("its child", other);
  t = { root, a, a1, b, other, other1 };
});
after(async () => {
  await store.cleanup();
});

const refusedAs = (edge: string) => (error: unknown) =>
  (error as { code?: string }).code === "WAIT_NOT_ALLOWED" &&
  (error as { edge?: string }).edge === edge;

/** An allowed wait on an unfinished task: it waits, then times out. */
async function allowed(target: string, by: string | null): Promise<void> {
  const outcome = await store.tasks.wait(target, { by, timeoutMs: 30 });
  assert.deepEqual(outcome, { kind: "timed_out" });
}

test("outside any task, a wait on any task is allowed", async () => {
  for (const id of Object.values(t)) await allowed(id, null);
});

test("a task may wait on its child and its grandchild (descendants)", async () => {
  await allowed(t.a1, t.a);
  await allowed(t.a1, t.root);
  await allowed(t.b, t.root);
});

test("a task may wait on an independent root", async () => {
  await allowed(t.other, t.a);
  await allowed(t.root, t.other1);
});

test("a task may not wait on itself", async () => {
  await assert.rejects(store.tasks.wait(t.a, { by: t.a }), refusedAs("self"));
});

test("a task may not wait on its parent or another ancestor", async () => {
  await assert.rejects(store.tasks.wait(t.a, { by: t.a1 }), refusedAs("ancestor"));
  await assert.rejects(store.tasks.wait(t.root, { by: t.a1 }), refusedAs("ancestor"));
});

test("a task may not wait on a peer in its own tree", async () => {
  await assert.rejects(store.tasks.wait(t.b, { by: t.a }), refusedAs("peer"));
  await assert.rejects(store.tasks.wait(t.a1, { by: t.b }), refusedAs("peer"));
});

test("a task may not wait on a task inside another tree, only on its root", async () => {
  await assert.rejects(store.tasks.wait(t.other1, { by: t.a }), refusedAs("not_a_root"));
});

test("the task the process runs in is the waiter unless told otherwise", async () => {
  const insideA1 = await Tasks.open({ dataDir: store.dataDir, env: { WARDEN_TASK_ID: t.a1 } });
  await assert.rejects(insideA1.wait(t.root), refusedAs("ancestor"));
  assert.deepEqual(await insideA1.wait(t.root, { by: null, timeoutMs: 10 }), { kind: "timed_out" });
});

/** A live wait is a file in waits/ named for the two trees: waits until one is there. */
async function edgeAppears(prefix: string): Promise<void> {
  for (
    let i = 0;
    !readdirSync(join(store.dataDir, "waits")).some((n) => n.startsWith(prefix));
    i++
  ) {
    assert.ok(i < 500, "the waiter registered its wait");
    await sleep(20);
  }
}

test("two trees may not wait on each other, until the first wait ends or its waiter dies", async () => {
  const isCycle = (e: unknown) => (e as { code?: string }).code === "WAIT_CYCLE";
  // a (tree of root) waits on other; then other1 (tree of other) may not wait on root.
  const first = store.tasks.wait(t.other, { by: t.a, timeoutMs: 2000 });
  await edgeAppears(`${t.root}.${t.other}.`);
  await assert.rejects(store.tasks.wait(t.root, { by: t.other1, timeoutMs: 10 }), isCycle);
  assert.deepEqual(await first, { kind: "timed_out" });
  await allowed(t.root, t.other1);

  // The same through a waiter in another process, killed while it waits: its edge dies with it.
  const waiter = new Fixture("waiter", [store.dataDir, t.other, "1", t.a, "60000"]);
  await edgeAppears(`${t.root}.${t.other}.`);
  await assert.rejects(store.tasks.wait(t.root, { by: t.other1, timeoutMs: 10 }), isCycle);
  waiter.kill("SIGKILL");
  await waiter.exited;
  await allowed(t.root, t.other1);
});

test("a wait gives the terminal record at once when the task has finished, and an abort rejects it", async () => {
  const { id } = await store.tasks.create({ prompt: "quick" });
  const run = await store.tasks.attach(id);
  const controller = new AbortController();
  const pending = store.tasks.wait(id, { signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, (e: unknown) => (e as Error).name === "AbortError");
  const end = await run.finish({ state: "failed", error: "it broke" });
  assert.deepEqual(await store.tasks.wait(id), { kind: "finished", terminal: end });
});
