// Symbolic links planted inside a task's directory, where the store keeps a file or directory of
// its own: the store never writes, reads or removes through one. Each test points the link at a
// directory or file outside the store and shows that it is left exactly as it was.
import { strict as assert } from "node:assert";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
let outside: string;
before(async () => {
  store = await tempStore();
  outside = await mkdtemp(join(tmpdir(), "warden-outside-"));
});
after(async () => {
  await store.cleanup();
  await rm(outside, { recursive: true, force: true });
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

const KEEP = "the owner's own bytes\n";

/** A file outside the store holding KEEP, for a link to point at. */
function outsideFile(name: string): string {
  const path = join(outside, name);
  writeFileSync(path, KEEP);
  return path;
}

/** A directory outside the store holding one file, for a link to point at. */
function outsideDir(name: string): string {
  const dir = join(outside, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "keep"), KEEP);
  return dir;
}

function assertUntouchedDir(dir: string): void {
  assert.deepEqual(readdirSync(dir), ["keep"]);
  assert.equal(readFileSync(join(dir, "keep"), "utf8"), KEEP);
}

async function newTask(): Promise<{ id: string; dir: string }> {
  const { id } = await store.tasks.create({ prompt: "leave my links alone" });
  return { id, dir: join(store.dataDir, "tasks", id) };
}

test("attaching a task whose events.jsonl is a link refuses and appends nothing to its target", async () => {
  const { id, dir } = await newTask();
  const target = outsideFile("passwd");
  symlinkSync(target, join(dir, "events.jsonl"));
  await assert.rejects(store.tasks.attach(id), code("PLANTED_LINK"));
  assert.equal(readFileSync(target, "utf8"), KEEP);
  // The refusal let go of the lock: the task is not left running.
  assert.notEqual((await store.tasks.get(id)).state, "running");
});

test("a watch never reads an events.jsonl that is a link as the task's events", async () => {
  const { id, dir } = await newTask();
  const target = join(outside, "forged.jsonl");
  writeFileSync(target, JSON.stringify({ seq: 1, at: 1, type: "forged" }) + "\n");
  symlinkSync(target, join(dir, "events.jsonl"));
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const event of store.tasks.watch(id, { follow: false })) seen.push(event.type);
  }, code("PLANTED_LINK"));
  assert.deepEqual(seen, []);
});

test("attaching a task whose results/ is a link refuses and writes nothing where it points", async () => {
  const { id, dir } = await newTask();
  const target = outsideDir("etc");
  symlinkSync(target, join(dir, "results"));
  await assert.rejects(store.tasks.attach(id), code("PLANTED_LINK"));
  assertUntouchedDir(target);
});

test("an attach.lock that is a link is never written through, and a list passes over the task", async () => {
  const { id, dir } = await newTask();
  const other = await newTask();
  const target = outsideFile("shadow");
  symlinkSync(target, join(dir, "attach.lock"));
  await assert.rejects(store.tasks.attach(id), code("PLANTED_LINK"));
  assert.equal(readFileSync(target, "utf8"), KEEP);
  const damaged: string[] = [];
  const listed = await store.tasks.list({ onDamaged: (bad) => damaged.push(bad) });
  assert.ok(listed.some((task) => task.id === other.id));
  assert.ok(!listed.some((task) => task.id === id));
  assert.deepEqual(damaged, [id]);
});

test("a prompt.md that is a link is never read as the task's prompt", async () => {
  const { id, dir } = await newTask();
  const target = outsideFile("secret-key");
  await rm(join(dir, "prompt.md"));
  symlinkSync(target, join(dir, "prompt.md"));
  await assert.rejects(store.tasks.attach(id), code("PLANTED_LINK"));
  assert.equal(readFileSync(target, "utf8"), KEEP);
});

test("a message is never written through a link planted as the inbox's temporary file", async () => {
  const { id, dir } = await newTask();
  const target = outsideFile("crontab");
  const temp = join(dir, ".inbox.json.tmp");
  symlinkSync(target, temp);
  assert.equal((await store.tasks.send(id, "hello")).n, 1);
  assert.equal(readFileSync(target, "utf8"), KEEP);
  assert.equal(existsSync(temp), false);
  assert.deepEqual(
    (await store.tasks.messages(id)).map((m) => m.body),
    ["hello"],
  );
});

test("a terminal.json that is a link is refused, not read as the task's end", async () => {
  const { id, dir } = await newTask();
  const target = join(outside, "forged-terminal.json");
  writeFileSync(target, JSON.stringify({ state: "succeeded", at: 1, lastSeq: 0, attempts: 1 }));
  symlinkSync(target, join(dir, "terminal.json"));
  await assert.rejects(store.tasks.get(id), code("PLANTED_LINK"));
  await assert.rejects(store.tasks.send(id, "are you done?"), code("PLANTED_LINK"));
});

test("removing a task whose results/ is a link removes the link and leaves what it points at", async () => {
  const { id, dir } = await newTask();
  const target = outsideDir("home");
  symlinkSync(target, join(dir, "results"));
  assert.ok(lstatSync(join(dir, "results")).isSymbolicLink());
  assert.deepEqual(await store.tasks.remove(id), [id]);
  assert.equal(existsSync(dir), false);
  assertUntouchedDir(target);
});
