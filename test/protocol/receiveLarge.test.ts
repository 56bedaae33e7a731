import { strict as assert } from "node:assert";
import { createHash, randomBytes } from "node:crypto";
import {
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import {
  BadResultsError,
  formatResult,
  receiveResults,
  type Result,
} from "../../src/protocol/index.js";
import { dyingProducer, END, file, header } from "./tarBytes.js";

const MiB = 1024 * 1024;
const result: Result = {
  agent: "command",
  agentExitCode: 0,
  timedOut: false,
  leftovers: false,
  truncated: [],
  warnings: [],
};
const resultEntry = file("result.json", formatResult(result));
/** Several write batches of the receiver, with a length that ends inside a tar block. */
const BUNDLE = randomBytes(5 * MiB + 333);

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Cuts `bytes` into chunks of `size`: large ones as a pipe rarely gives, or small ones. */
function chunked(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  return chunks;
}

describe("receiveResults with entries of many write batches", () => {
  let parent = "";
  let count = 0;
  const freshDir = (): string => {
    const dir = join(parent, `out-${count++}`);
    mkdirSync(dir);
    return dir;
  };
  before(() => {
    parent = mkdtempSync(join(tmpdir(), "warden-receive-large-"));
  });
  after(() => {
    rmSync(parent, { recursive: true, force: true });
  });

  for (const size of [3 * MiB, 64 * 1024, 4096 + 1]) {
    test(`a 5 MiB entry fed in chunks of ${size} bytes arrives byte-identical`, async () => {
      const dir = freshDir();
      const archive = Buffer.concat([file("changes.bundle", BUNDLE), resultEntry, END]);
      const received = await receiveResults(Readable.from(chunked(archive, size)), { dir });
      assert.equal(received.files["changes.bundle"]?.bytes, BUNDLE.length);
      assert.equal(sha256(readFileSync(join(dir, "changes.bundle"))), sha256(BUNDLE));
      assert.deepEqual(received.result, result);
    });
  }

  test("a file larger than the background sync interval arrives byte-identical", async () => {
    const dir = freshDir();
    const source = join(parent, `archive-${count++}.tar`);
    // Just over one interval (64 MiB), so one sync runs while the rest is written.
    const transcript = Buffer.alloc(66 * MiB + 17);
    for (let at = 0; at < transcript.length; at += BUNDLE.length) BUNDLE.copy(transcript, at);
    writeFileSync(source, Buffer.concat([file("transcript.jsonl", transcript), resultEntry, END]));
    const received = await receiveResults(createReadStream(source), { dir });
    assert.equal(received.files["transcript.jsonl"]?.bytes, transcript.length);
    assert.equal(sha256(readFileSync(join(dir, "transcript.jsonl"))), sha256(transcript));
  });

  test("a file after result.json is refused after a large entry, and every file removed", async () => {
    const dir = freshDir();
    const archive = Buffer.concat([
      file("changes.bundle", BUNDLE),
      resultEntry,
      file("agent.log", "late"),
      END,
    ]);
    const stream = Readable.from(chunked(archive, 3 * MiB));
    await assert.rejects(receiveResults(stream, { dir }), (error: unknown) => {
      assert.ok(error instanceof BadResultsError);
      assert.match(error.message, /data after result\.json/);
      return true;
    });
    assert.deepEqual(readdirSync(dir), []);
  });

  test("a large entry cut short in the middle is refused, its partial file removed", async () => {
    const dir = freshDir();
    const archive = Buffer.concat([file("changes.bundle", BUNDLE)]).subarray(0, 4 * MiB);
    const stream = Readable.from(chunked(archive, 3 * MiB));
    await assert.rejects(receiveResults(stream, { dir }), /cut short in the middle of an entry/);
    assert.deepEqual(readdirSync(dir), []);
  });

  test("a producer that fails while batches are being written leaves nothing behind", async () => {
    const dir = freshDir();
    const chunks = chunked(file("changes.bundle", BUNDLE).subarray(0, 4 * MiB), 1 * MiB + 1);
    await assert.rejects(receiveResults(dyingProducer(chunks), { dir }), /the sandbox died/);
    assert.deepEqual(readdirSync(dir), []);
  });

  test("a second large entry over its limit is refused from its header after the first is written", async () => {
    const dir = freshDir();
    const archive = Buffer.concat([
      file("changes.bundle", BUNDLE),
      header({ name: "agent.log", size: 2 * MiB }),
    ]);
    const stream = Readable.from(chunked(archive, 3 * MiB));
    await assert.rejects(receiveResults(stream, { dir }), /over its limit/);
    assert.deepEqual(readdirSync(dir), []);
  });
});
