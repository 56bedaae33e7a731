// Files sent with a message: checked before the inbox is touched (names, count, total), written
// whole before the record that names them, and handed to the executor only as they were sent.
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  STORE_LIMITS,
  TaskPaths,
  type Attachment,
  type MessageFile,
} from "../../src/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;
const file = (name: string, data: string | Buffer = "data") => ({
  name,
  data: typeof data === "string" ? Buffer.from(data) : data,
});

/** File i of the next message the executor takes; a message without it fails the test. */
async function takenFile(run: Attachment, i = 0): Promise<MessageFile> {
  const taken = await run.takeNextMessage();
  const file = taken?.files?.[i];
  if (file === undefined) throw new Error("the message came without its files");
  return file;
}

function paths(id: string): TaskPaths {
  return new TaskPaths(store.dataDir, id);
}

test("a message's files come back to the executor byte for byte, with their sizes and digests", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  const blob = randomBytes(70_000);
  const sent = await store.tasks.send(id, "see the files", {
    files: [file("notes.md", "# notes\n"), file("blob.bin", blob)],
  });
  assert.deepEqual(
    sent.files?.map((f) => [f.name, f.bytes]),
    [
      ["notes.md", 8],
      ["blob.bin", 70_000],
    ],
  );
  const run = await store.tasks.attach(id);
  const data = await takenFile(run, 1);
  assert.match(data.sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(await run.messageFile(1, data), blob);
  const [notes] = (await store.tasks.messages(id))[0]?.files ?? [];
  assert.ok(notes !== undefined);
  assert.equal((await run.messageFile(1, notes)).toString(), "# notes\n");
  await run.finish({ state: "succeeded" });
});

test("unsafe or repeated names are refused, and nothing of the message is kept", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  for (const name of ["../escape", "a/b", ".hidden", "", "..", "x".repeat(129), "tab\there"]) {
    await assert.rejects(
      store.tasks.send(id, "hi", { files: [file(name)] }),
      code("BAD_MESSAGE_FILE"),
      JSON.stringify(name),
    );
  }
  await assert.rejects(
    store.tasks.send(id, "hi", { files: [file("same.txt"), file("same.txt")] }),
    code("BAD_MESSAGE_FILE"),
  );
  assert.equal((await store.tasks.messages(id)).length, 0);
  assert.equal(existsSync(paths(id).messageFiles), false);
});

test("more files than a message takes, or more bytes in all, are refused", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  const many = Array.from({ length: STORE_LIMITS.messageFiles + 1 }, (_, i) => file(`f${i}`));
  await assert.rejects(store.tasks.send(id, "hi", { files: many }), code("MESSAGE_FILES_TOO_BIG"));
  const half = Buffer.alloc(STORE_LIMITS.messageFilesBytes / 2);
  await assert.rejects(
    store.tasks.send(id, "hi", { files: [file("a", half), file("b", half), file("c", "1")] }),
    code("MESSAGE_FILES_TOO_BIG"),
  );
  const full = await store.tasks.send(id, "hi", { files: [file("a", half), file("b", half)] });
  assert.equal(full.files?.length, 2);
});

test("a file changed after it was sent, or swapped for a link, is refused when it is taken", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  await store.tasks.send(id, "one", { files: [file("a.txt", "original")] });
  await store.tasks.send(id, "two", { files: [file("b.txt", "original")] });
  const dir = paths(id).messageFiles;
  // Same size, other bytes: only the digest tells.
  await writeFile(join(dir, "1", "a.txt"), "ORIGINAL");
  await rm(join(dir, "2", "b.txt"));
  await symlink("/etc/passwd", join(dir, "2", "b.txt"));
  const run = await store.tasks.attach(id);
  const first = await takenFile(run);
  await assert.rejects(run.messageFile(1, first), code("STORE_CORRUPT"));
  const second = await takenFile(run);
  await assert.rejects(run.messageFile(2, second), code("PLANTED_LINK"));
  await run.finish({ state: "succeeded" });
});

test("files a sender left before it crashed, without a record, are replaced by the next message's", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  const left = join(paths(id).messageFiles, "1");
  await mkdir(left, { recursive: true });
  await writeFile(join(left, "stale.txt"), "from a sender that died");
  const sent = await store.tasks.send(id, "fresh", { files: [file("fresh.txt", "new")] });
  assert.equal(sent.n, 1);
  assert.deepEqual(await readdir(left), ["fresh.txt"]);
});

describe("files handed back with a reply", () => {
  const piece = (n: number, name: string, data: string | Buffer, offset = 0, last = true) => ({
    n,
    name,
    offset,
    data: typeof data === "string" ? Buffer.from(data) : data,
    last,
  });

  async function inFlight(): Promise<{ id: string; run: Attachment }> {
    const { id } = await store.tasks.create({ prompt: "listen" });
    await store.tasks.send(id, "make me a report");
    const run = await store.tasks.attach(id);
    await run.takeNextMessage();
    return { id, run };
  }

  test("pieces in order make a file the reply's record names, with its size and digest", async () => {
    const { id, run } = await inFlight();
    await run.replyFilePiece(piece(1, "report.md", "# rep", 0, false));
    await run.replyFilePiece(piece(1, "report.md", "ort\n", 5, true));
    await run.replyFilePiece(piece(1, "half.bin", "never finished", 0, false));
    const delivered = await run.deliver(1, "here it is");
    assert.deepEqual(
      delivered.replyFiles?.map((f) => [f.name, f.bytes]),
      [["report.md", 9]],
    );
    const dir = join(paths(id).replyFiles, "1");
    assert.deepEqual(await readdir(dir), ["report.md"], "the unfinished piece is gone");
    assert.equal((await store.tasks.messages(id))[0]?.replyFiles?.[0]?.name, "report.md");
    await run.finish({ state: "succeeded" });
  });

  test("a piece for a message that is not in flight, under a bad name, out of order, or twice is refused", async () => {
    const { run } = await inFlight();
    await assert.rejects(run.replyFilePiece(piece(2, "a.txt", "x")), code("MESSAGE_STATE"));
    await assert.rejects(run.replyFilePiece(piece(1, "../a", "x")), code("BAD_MESSAGE_FILE"));
    await assert.rejects(run.replyFilePiece(piece(1, ".git", "x")), code("BAD_MESSAGE_FILE"));
    await assert.rejects(run.replyFilePiece(piece(1, "a.txt", "x", 7)), code("BAD_MESSAGE_FILE"));
    await run.replyFilePiece(piece(1, "a.txt", "x"));
    await assert.rejects(run.replyFilePiece(piece(1, "a.txt", "y")), code("BAD_MESSAGE_FILE"));
    await run.deliver(1, "done");
    await assert.rejects(run.replyFilePiece(piece(1, "b.txt", "late")), code("MESSAGE_STATE"));
    await run.finish({ state: "succeeded" });
  });

  test("more files, or more bytes in all, than a message may bring are refused", async () => {
    const { run } = await inFlight();
    for (let i = 0; i < STORE_LIMITS.messageFiles; i++) {
      await run.replyFilePiece(piece(1, `f${i}`, "x"));
    }
    await assert.rejects(
      run.replyFilePiece(piece(1, "one-more", "x")),
      code("MESSAGE_FILES_TOO_BIG"),
    );
    const { run: other } = await inFlight();
    const half = Buffer.alloc(STORE_LIMITS.messageFilesBytes / 2);
    await other.replyFilePiece(piece(1, "a", half));
    await other.replyFilePiece(piece(1, "b", half, 0, false));
    await assert.rejects(
      other.replyFilePiece(piece(1, "b", "x", half.length)),
      code("MESSAGE_FILES_TOO_BIG"),
    );
    await run.finish({ state: "succeeded" });
    await other.finish({ state: "succeeded" });
  });
});
