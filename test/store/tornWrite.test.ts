// A process killed between writing a temporary file and renaming it leaves the old file whole
// (or no file): spec.json, inbox.json and terminal.json are never half written.
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import { Fixture, tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

async function killWhenPaused(fixture: Fixture, file: string): Promise<void> {
  let line = await fixture.line();
  if (line === "attached") line = await fixture.line();
  assert.equal(line, `paused ${file}`);
  fixture.kill("SIGKILL");
  await fixture.exited;
}

test("a creator killed before its rename leaves no task, and gc sweeps what it left", async () => {
  const before = await store.tasks.list();
  const creator = new Fixture("tornWriter", [store.dataDir, "create"]);
  // The rename that makes a task appear is of its whole directory, named by its id.
  const paused = (await creator.line()).split(" ")[1] ?? "";
  creator.kill("SIGKILL");
  await creator.exited;
  assert.equal(existsSync(join(store.dataDir, "tasks", paused)), false);
  assert.deepEqual(await store.tasks.list(), before);
  const staged = readdirSync(join(store.dataDir, "tmp"));
  assert.equal(staged.filter((n) => n.startsWith(paused)).length, 1);
  // Staging left by a dead creator goes once it is old (the clock here is two hours ahead).
  const later = await Tasks.open({
    dataDir: store.dataDir,
    env: {},
    now: () => Date.now() + 7_200_000,
  });
  assert.equal((await later.gc()).staging, 1);
  assert.deepEqual(readdirSync(join(store.dataDir, "tmp")), []);
});

test("a sender killed before its rename leaves inbox.json as it was, and the next send works", async () => {
  const { id } = await store.tasks.create({ prompt: "an inbox" });
  await store.tasks.send(id, "the first message");
  const inboxPath = join(store.dataDir, "tasks", id, "inbox.json");
  const beforeBytes = readFileSync(inboxPath);
  const sender = new Fixture("tornWriter", [store.dataDir, "send", id]);
  await killWhenPaused(sender, "inbox.json");
  assert.deepEqual(readFileSync(inboxPath), beforeBytes);
  assert.deepEqual(
    (await store.tasks.messages(id)).map((m) => m.body),
    ["the first message"],
  );
  // The kernel freed inbox.lock with the process; the leftover temporary file is overwritten.
  assert.equal((await store.tasks.send(id, "the second message")).n, 2);
});

test("an executor killed before its rename leaves no terminal.json, and the task runs again", async () => {
  const { id } = await store.tasks.create({ prompt: "an ending" });
  const executor = new Fixture("tornWriter", [store.dataDir, "finish", id]);
  await killWhenPaused(executor, "terminal.json");
  const dir = join(store.dataDir, "tasks", id);
  assert.equal(existsSync(join(dir, "terminal.json")), false);
  // The temporary file is complete, but only a rename would have made it the record.
  assert.ok(existsSync(join(dir, ".terminal.json.tmp")));
  assert.equal((await store.tasks.get(id)).state, "interrupted");
  const run = await store.tasks.attach(id);
  const end = await run.finish({ state: "succeeded", summary: "finished the second time" });
  assert.deepEqual(JSON.parse(readFileSync(join(dir, "terminal.json"), "utf8")), end);
});

test("spec.json cannot be rewritten: creating an existing id is refused and changes nothing", async () => {
  const { id } = await store.tasks.create({ prompt: "the original" });
  const specPath = join(store.dataDir, "tasks", id, "spec.json");
  const original = readFileSync(specPath);
  await assert.rejects(
    store.tasks.create({ prompt: "a replacement" }, { id }),
    (e: unknown) => (e as { code?: string }).code === "SPEC_IMMUTABLE",
  );
  assert.deepEqual(readFileSync(specPath), original);
  assert.equal((await store.tasks.get(id)).spec.prompt, "the original");
});

test("a task whose files are damaged is left out of list and named, and the others are still listed", async () => {
  const own = await tempStore();
  try {
    const first = await own.tasks.create({ prompt: "whole before" });
    const damaged = await own.tasks.create({ prompt: "to be damaged" });
    const last = await own.tasks.create({ prompt: "whole after" });
    writeFileSync(join(own.dataDir, "tasks", damaged.id, "spec.json"), '{"id": "torn');
    const named: [string, string][] = [];
    const list = await own.tasks.list({
      onDamaged: (id, error) => named.push([id, error.code]),
    });
    assert.deepEqual(
      list.map((task) => task.id),
      [first.id, last.id],
    );
    assert.deepEqual(named, [[damaged.id, "STORE_CORRUPT"]]);
    await assert.rejects(own.tasks.get(damaged.id), { code: "STORE_CORRUPT" });
  } finally {
    await own.cleanup();
  }
});

test("a task whose spec.json is damaged can still be removed, as its error's hint says", async () => {
  const { id } = await store.tasks.create({ prompt: "to be damaged and removed" });
  const dir = join(store.dataDir, "tasks", id);
  writeFileSync(join(dir, "spec.json"), "not json at all");
  assert.deepEqual(await store.tasks.remove(id), [id]);
  assert.equal(existsSync(dir), false);
});
