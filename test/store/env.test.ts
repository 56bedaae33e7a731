// The environment protocol: set for every command a task runs, and read back by currentTask.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { currentTask, taskEnvironment, Tasks } from "../../src/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const ID = "01hzy3k2m4n5p6q7r8s9t0v1w2";
const PARENT = "01hzy3k2m4n5p6q7r8s9t0v1w3";

test("a blank or malformed WARDEN_TASK_ID means not inside a task", () => {
  for (const value of [
    undefined,
    "",
    "   ",
    "not-an-id",
    ID.toUpperCase(),
    ID + "x",
    "8" + ID.slice(1),
  ]) {
    assert.equal(currentTask({ WARDEN_TASK_ID: value }), undefined, String(value));
  }
});

test("a well-formed one is the current task, with its parent and hop when they are well formed", () => {
  assert.deepEqual(currentTask({ WARDEN_TASK_ID: ` ${ID}\n` }), { id: ID, hop: 0 });
  assert.deepEqual(
    currentTask({ WARDEN_TASK_ID: ID, WARDEN_PARENT_TASK_ID: PARENT, WARDEN_HOP: "3" }),
    { id: ID, parent: PARENT, hop: 3 },
  );
  assert.deepEqual(
    currentTask({ WARDEN_TASK_ID: ID, WARDEN_PARENT_TASK_ID: "junk", WARDEN_HOP: "-1" }),
    { id: ID, hop: 0 },
  );
});

test("the variables for a task's commands name only what applies", () => {
  assert.deepEqual(taskEnvironment({ id: ID, parent: null, hop: 0 }), { WARDEN_TASK_ID: ID });
  assert.deepEqual(
    taskEnvironment(
      { id: ID, parent: PARENT, hop: 2 },
      { dataDir: "/d", metadataUrl: "http://127.0.0.1:9/" },
    ),
    {
      WARDEN_TASK_ID: ID,
      WARDEN_PARENT_TASK_ID: PARENT,
      WARDEN_HOP: "2",
      WARDEN_DATA_DIR: "/d",
      WARDEN_METADATA_URL: "http://127.0.0.1:9/",
    },
  );
});

test("a task created from inside a task records it as its parent, unless asked for a root", async () => {
  const outer = await store.tasks.create({ prompt: "outer" });
  const run = await store.tasks.attach(outer.id);
  const env = run.env({ metadataUrl: "http://127.0.0.1:1/" });
  assert.equal(env.WARDEN_TASK_ID, outer.id);
  assert.equal(env.WARDEN_DATA_DIR, store.dataDir);
  // A process the task runs finds the same store and itself in it.
  const inside = await Tasks.open({ env });
  assert.equal(inside.dataDir, store.dataDir);
  assert.equal(inside.current?.id, outer.id);
  const child = await inside.create({ prompt: "inner" });
  assert.equal(child.parent, outer.id);
  assert.equal(child.hop, 1);
  const root = await inside.create({ prompt: "a root of its own", parent: null });
  assert.equal(root.parent, null);
  assert.equal(root.root, root.id);
  // A malformed id in the environment is not a parent.
  const outside = await Tasks.open({ dataDir: store.dataDir, env: { WARDEN_TASK_ID: "garbage" } });
  assert.equal((await outside.create({ prompt: "no parent" })).parent, null);
  await run.finish({ state: "succeeded" });
});
