// Prompts and messages are text: bytes that are not UTF-8 are refused (never decoded into
// U+FFFD), and so is a NUL, whether the text comes as a string or as the bytes of a file.
import { strict as assert } from "node:assert";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

/** "fix it" with a byte that no UTF-8 text holds in the middle. */
const NOT_UTF8 = Buffer.from([0x66, 0x69, 0x78, 0xff, 0x20, 0x69, 0x74]);

function taskCount(): number {
  return readdirSync(join(store.dataDir, "tasks")).length;
}

test("a prompt given as bytes that are not UTF-8 is refused with PROMPT_NOT_TEXT, and no task is made", async () => {
  const before = taskCount();
  await assert.rejects(store.tasks.create({ prompt: NOT_UTF8 }), (error: unknown) => {
    assert.equal((error as { code?: string }).code, "PROMPT_NOT_TEXT");
    assert.match((error as Error).message, /not valid UTF-8/);
    return true;
  });
  // A truncated multi-byte character and an overlong encoding are not UTF-8 either.
  await assert.rejects(
    store.tasks.create({ prompt: Buffer.from([0x61, 0xe2, 0x82]) }),
    code("PROMPT_NOT_TEXT"),
  );
  await assert.rejects(
    store.tasks.create({ prompt: Buffer.from([0xc0, 0xaf]) }),
    code("PROMPT_NOT_TEXT"),
  );
  assert.equal(taskCount(), before);
});

test("a prompt with a NUL is refused, as text and as bytes", async () => {
  await assert.rejects(store.tasks.create({ prompt: "run\0this" }), (error: unknown) => {
    assert.equal((error as { code?: string }).code, "PROMPT_NOT_TEXT");
    assert.match((error as Error).message, /NUL/);
    return true;
  });
  await assert.rejects(
    store.tasks.create({ prompt: Buffer.from("run\0this") }),
    code("PROMPT_NOT_TEXT"),
  );
});

test("a prompt given as UTF-8 bytes is the task's prompt, a leading byte-order mark dropped", async () => {
  const text = "réparer le test ✓ 🦀\n";
  const plain = await store.tasks.create({ prompt: Buffer.from(text) });
  const attached = await store.tasks.attach(plain.id);
  assert.equal(attached.spec.prompt, text);
  await attached.finish({ state: "succeeded" });
  const marked = await store.tasks.create({
    prompt: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
  });
  const again = await store.tasks.attach(marked.id);
  assert.equal(again.spec.prompt, text);
  await again.finish({ state: "succeeded" });
});

test("a message given as bytes that are not UTF-8, or with a NUL, is refused with MESSAGE_NOT_TEXT", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  await assert.rejects(store.tasks.send(id, NOT_UTF8), (error: unknown) => {
    assert.equal((error as { code?: string }).code, "MESSAGE_NOT_TEXT");
    assert.match((error as Error).message, /not valid UTF-8/);
    return true;
  });
  await assert.rejects(store.tasks.send(id, "stop\0now"), code("MESSAGE_NOT_TEXT"));
  await assert.rejects(store.tasks.send(id, Buffer.from("stop\0now")), code("MESSAGE_NOT_TEXT"));
  assert.deepEqual(await store.tasks.messages(id), []);
});

test("a message given as UTF-8 bytes arrives as its text", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  await store.tasks.send(id, Buffer.from("aussi le changelog ✓"));
  assert.deepEqual(
    (await store.tasks.messages(id)).map((m) => m.body),
    ["aussi le changelog ✓"],
  );
});
