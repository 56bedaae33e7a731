import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  BadResultsError,
  LIMITS,
  receiveResults,
  writeResults,
  type Result,
  type ResultsFile,
} from "../../src/protocol/index.js";

const result: Result = {
  base: "1".repeat(40),
  head: "2".repeat(40),
  agent: "command",
  agentExitCode: 0,
  agentResult: { type: "result", subtype: "success" },
  timedOut: false,
  leftovers: true,
  truncated: ["agent.log"],
  warnings: ["a warning"],
};

let root = "";
let count = 0;

function fresh(): string {
  const dir = join(root, `d-${count++}`);
  mkdirSync(dir);
  return dir;
}

/** A Writable that keeps what it gets, taking each chunk after a delay when asked to. */
class Collector extends Writable {
  readonly chunks: Buffer[] = [];
  writes = 0;
  constructor(
    private readonly delayMs = 0,
    private readonly onWrite: (n: number) => void = () => undefined,
  ) {
    super({ highWaterMark: 1024 });
  }
  override _write(
    chunk: Buffer,
    _encoding: string,
    callback: (error?: Error | null) => void,
  ): void {
    this.onWrite(this.writes++);
    this.chunks.push(chunk);
    if (this.delayMs > 0) setTimeout(callback, this.delayMs);
    else callback();
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

async function refused(
  files: readonly ResultsFile[],
  pattern: RegExp,
  value: Result = result,
): Promise<Collector> {
  const out = new Collector();
  await assert.rejects(writeResults(out, files, value), (error: unknown) => {
    assert.ok(error instanceof BadResultsError, String(error));
    assert.match(error.message, pattern);
    return true;
  });
  return out;
}

describe("writeResults", () => {
  before(() => {
    root = mkdtempSync(join(tmpdir(), "warden-write-"));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test("real files round-trip through writeResults and receiveResults", async () => {
    const src = fresh();
    const transcript = randomBytes(3 * 1024 * 1024 + 17);
    const log = Buffer.from("stderr line\r\n".repeat(100));
    const bundle = randomBytes(511);
    writeFileSync(join(src, "t"), transcript);
    writeFileSync(join(src, "l"), log);
    writeFileSync(join(src, "b"), bundle);
    const pipe = new PassThrough();
    const dir = fresh();
    const receiving = receiveResults(pipe, { dir });
    await writeResults(
      pipe,
      [
        { name: "transcript.jsonl", path: join(src, "t") },
        { name: "agent.log", path: join(src, "l") },
        { name: "changes.bundle", path: join(src, "b") },
      ],
      result,
    );
    assert.ok(!pipe.writableEnded, "writeResults does not end its output");
    pipe.end();
    const received = await receiving;
    assert.deepEqual(received.result, result);
    assert.deepEqual(readFileSync(join(dir, "transcript.jsonl")), transcript);
    assert.deepEqual(readFileSync(join(dir, "agent.log")), log);
    assert.deepEqual(readFileSync(join(dir, "changes.bundle")), bundle);
    assert.deepEqual(Object.keys(received.files).sort(), [
      "agent.log",
      "changes.bundle",
      "result.json",
      "transcript.jsonl",
    ]);
  });

  test("with no files the archive holds result.json alone", async () => {
    const out = new Collector();
    await writeResults(out, [], result);
    const dir = fresh();
    const received = await receiveResults(PassThrough.from([out.bytes()]), { dir });
    assert.deepEqual(received.result, result);
    assert.deepEqual(readdirSync(dir), ["result.json"]);
  });

  test("result.json comes last, after every file", async () => {
    const src = fresh();
    writeFileSync(join(src, "l"), "log");
    const out = new Collector();
    await writeResults(out, [{ name: "agent.log", path: join(src, "l") }], result);
    const bytes = out.bytes();
    assert.equal(bytes.subarray(0, 9).toString(), "agent.log");
    assert.equal(bytes.subarray(1024, 1035).toString(), "result.json");
    assert.ok(
      bytes.subarray(bytes.length - 1024).every((b) => b === 0),
      "ends with the end marker",
    );
  });

  test("a slow consumer gets every byte: writeResults waits for drain", async () => {
    const src = fresh();
    const data = randomBytes(2 * 1024 * 1024);
    writeFileSync(join(src, "t"), data);
    const out = new Collector(1);
    await writeResults(out, [{ name: "transcript.jsonl", path: join(src, "t") }], result);
    assert.equal(out.writableLength, 0, "everything was flushed when it resolved");
    const received = await receiveResults(PassThrough.from([out.bytes()]), { dir: fresh() });
    assert.equal(received.files["transcript.jsonl"]?.bytes, data.length);
  });

  test("a real child's stdout carries the archive to the host", async () => {
    const src = fresh();
    writeFileSync(join(src, "t"), '{"type":"assistant"}\n'.repeat(50_000));
    writeFileSync(join(src, "l"), "warn\n");
    const script = fileURLToPath(new URL("./fixtures/sendResults.ts", import.meta.url));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", script, join(src, "t"), join(src, "l")],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code) => {
        resolve(code);
      }),
    );
    const dir = fresh();
    const received = await receiveResults(child.stdout, { dir });
    assert.equal(await exited, 0, stderr);
    assert.equal(stderr, "sent\n");
    assert.deepEqual(received.result.warnings, ["sent from a child process"]);
    assert.equal(received.files["transcript.jsonl"]?.bytes, 21 * 50_000);
  });

  test("a file over its limit is refused before a byte goes out", async () => {
    const src = fresh();
    writeFileSync(join(src, "l"), Buffer.alloc(LIMITS.logBytes + 1));
    const out = await refused(
      [{ name: "agent.log", path: join(src, "l") }],
      /agent\.log is 1048577 bytes, over its limit of 1048576/,
    );
    assert.equal(out.writes, 0);
  });

  test("a file at its limit is sent", async () => {
    const src = fresh();
    writeFileSync(join(src, "l"), Buffer.alloc(LIMITS.logBytes, 0x61));
    const out = new Collector();
    await writeResults(out, [{ name: "agent.log", path: join(src, "l") }], result);
    const received = await receiveResults(PassThrough.from([out.bytes()]), { dir: fresh() });
    assert.equal(received.files["agent.log"]?.bytes, LIMITS.logBytes);
  });

  test("a name twice is refused before a byte goes out", async () => {
    const src = fresh();
    writeFileSync(join(src, "l"), "x");
    const file: ResultsFile = { name: "agent.log", path: join(src, "l") };
    const out = await refused([file, file], /agent\.log is in the results twice/);
    assert.equal(out.writes, 0);
  });

  test("result.json or an unknown name as a file is refused", async () => {
    const src = fresh();
    writeFileSync(join(src, "r"), "{}");
    await refused(
      [{ name: "result.json", path: join(src, "r") } as unknown as ResultsFile],
      /not a result file/,
    );
    await refused(
      [{ name: "../x", path: join(src, "r") } as unknown as ResultsFile],
      /not a result file/,
    );
  });

  test("a symlink in place of a file is not followed", async () => {
    const src = fresh();
    writeFileSync(join(src, "secret"), "do not send");
    symlinkSync(join(src, "secret"), join(src, "l"));
    const out = new Collector();
    await assert.rejects(writeResults(out, [{ name: "agent.log", path: join(src, "l") }], result), {
      code: "ELOOP",
    });
    assert.equal(out.writes, 0);
  });

  test("a directory in place of a file is refused", async () => {
    const src = fresh();
    await refused([{ name: "changes.bundle", path: src }], /not a regular file/);
  });

  test("a bad result is refused before a byte goes out", async () => {
    const out = await refused([], /head/, { ...result, head: "HEAD" });
    assert.equal(out.writes, 0);
  });

  test("a file that grows while it is sent is sent at the size it had", async () => {
    const src = fresh();
    const path = join(src, "t");
    writeFileSync(path, Buffer.alloc(1024 * 1024, 0x61));
    const out = new Collector(0, (n) => {
      if (n === 0) appendFileSync(path, Buffer.alloc(4096, 0x62));
    });
    await writeResults(out, [{ name: "transcript.jsonl", path }], result);
    const dir = fresh();
    const received = await receiveResults(PassThrough.from([out.bytes()]), { dir });
    assert.equal(received.files["transcript.jsonl"]?.bytes, 1024 * 1024);
    assert.ok(readFileSync(join(dir, "transcript.jsonl")).every((b) => b === 0x61));
  });

  test("a file that shrinks while it is sent is refused, and the host refuses what went out", async () => {
    const src = fresh();
    const path = join(src, "t");
    writeFileSync(path, Buffer.alloc(4 * 1024 * 1024, 0x61));
    const out = new Collector(0, (n) => {
      if (n === 0) truncateSync(path, 1000);
    });
    await assert.rejects(writeResults(out, [{ name: "transcript.jsonl", path }], result), /shrank/);
    await assert.rejects(
      receiveResults(PassThrough.from([out.bytes()]), { dir: fresh() }),
      BadResultsError,
    );
  });

  test("an output that fails makes writeResults reject instead of hanging", async () => {
    const src = fresh();
    writeFileSync(join(src, "t"), randomBytes(4 * 1024 * 1024));
    const out = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, callback) {
        callback(new Error("EPIPE, as when the host went away"));
      },
    });
    await assert.rejects(
      writeResults(out, [{ name: "transcript.jsonl", path: join(src, "t") }], result),
      /EPIPE/,
    );
  });

  test("an output destroyed midway makes writeResults reject instead of hanging", async () => {
    const src = fresh();
    writeFileSync(join(src, "t"), randomBytes(4 * 1024 * 1024));
    const out: Collector = new Collector(1, (n) => {
      if (n === 3) out.destroy();
    });
    await assert.rejects(
      writeResults(out, [{ name: "transcript.jsonl", path: join(src, "t") }], result),
    );
  });
});
