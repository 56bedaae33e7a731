import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { pack as tarPack, type Header } from "tar-stream";
import {
  BadResultsError,
  LIMITS,
  formatResult,
  receiveResults,
  type ReceiveOptions,
  type Result,
} from "../../src/protocol/index.js";
import { END, base256, body, dyingProducer, file, header } from "./tarBytes.js";

const result: Result = {
  agent: "command",
  agentExitCode: 0,
  timedOut: false,
  leftovers: false,
  truncated: [],
  warnings: [],
};
const resultBytes = formatResult(result);
const resultEntry = file("result.json", resultBytes);

/** An archive made by tar-stream, as the guest makes it, with any headers tar-stream allows. */
async function packed(
  entries: { header: Partial<Header> & { name: string }; body?: string | Buffer }[],
): Promise<Buffer> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) chunks.push(chunk as Buffer);
  })();
  for (const { header: h, body: b } of entries) {
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null): void => {
        if (error) reject(error);
        else resolve();
      };
      if (b === undefined) pack.entry(h, done).end(null);
      else pack.entry(h, b, done);
    });
  }
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
}

let parent = "";
let count = 0;

/** A fresh empty directory under the shared parent. */
function freshDir(): string {
  const dir = join(parent, `out-${count++}`);
  mkdirSync(dir);
  return dir;
}

async function refusedWith(
  source: Buffer | Readable,
  pattern: RegExp,
  options: Partial<ReceiveOptions> = {},
): Promise<void> {
  const dir = freshDir();
  const stream = source instanceof Readable ? source : Readable.from([source]);
  await assert.rejects(receiveResults(stream, { dir, ...options }), (error: unknown) => {
    assert.ok(error instanceof BadResultsError, String(error));
    assert.equal(error.code, "BAD_RESULTS");
    assert.match(error.message, pattern);
    // eslint-disable-next-line no-control-regex -- hostile text must come out cleaned.
    assert.doesNotMatch(error.message, /[\x00-\x1f\x7f-\x9f\u202E]/);
    return true;
  });
  assert.deepEqual(readdirSync(dir), [], "every file written is removed");
  assert.ok(stream.destroyed, "the stream is destroyed");
}

/** A stream that gives `first` and then nothing, ever: reading past it would hang the test. */
function stalling(first: Buffer): Readable {
  let given = false;
  return new Readable({
    read() {
      if (!given) {
        given = true;
        this.push(first);
      }
    },
  });
}

describe("receiveResults", () => {
  before(() => {
    parent = mkdtempSync(join(tmpdir(), "warden-receive-"));
  });
  after(() => {
    rmSync(parent, { recursive: true, force: true });
  });

  test("a good archive is received, each file 0600, result.json parsed", async () => {
    const dir = freshDir();
    const transcript = Buffer.from('{"type":"x"}\n'.repeat(1000));
    const bundle = randomBytes(70_000);
    const archive = Buffer.concat([
      file("transcript.jsonl", transcript),
      file("agent.log", ""),
      file("changes.bundle", bundle),
      resultEntry,
      END,
    ]);
    const received = await receiveResults(Readable.from([archive]), { dir });
    assert.deepEqual(received.result, result);
    assert.deepEqual(readdirSync(dir).sort(), [
      "agent.log",
      "changes.bundle",
      "result.json",
      "transcript.jsonl",
    ]);
    assert.deepEqual(readFileSync(join(dir, "transcript.jsonl")), transcript);
    assert.deepEqual(readFileSync(join(dir, "changes.bundle")), bundle);
    assert.deepEqual(readFileSync(join(dir, "result.json")), resultBytes);
    assert.equal(readFileSync(join(dir, "agent.log")).length, 0);
    assert.deepEqual(received.files["changes.bundle"], {
      path: join(dir, "changes.bundle"),
      bytes: bundle.length,
    });
    for (const name of readdirSync(dir))
      assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600);
  });

  test("an archive fed one byte at a time is received the same", async () => {
    const dir = freshDir();
    const archive = Buffer.concat([file("agent.log", "line\n"), resultEntry, END]);
    const bytes = Array.from(archive, (b) => Buffer.from([b]));
    const received = await receiveResults(Readable.from(bytes), { dir });
    assert.equal(received.files["agent.log"]?.bytes, 5);
    assert.equal(readFileSync(join(dir, "agent.log"), "utf8"), "line\n");
  });

  test("an archive made by tar-stream, as the guest makes it, is received", async () => {
    const dir = freshDir();
    const archive = await packed([
      { header: { name: "agent.log", mode: 0o600 }, body: "hello\n" },
      { header: { name: "result.json" }, body: resultBytes },
    ]);
    const received = await receiveResults(Readable.from([archive]), { dir });
    assert.equal(received.files["agent.log"]?.bytes, 6);
  });

  test("an archive padded to tar's 10 KiB record is received", async () => {
    const archive = Buffer.concat([resultEntry, Buffer.alloc(10240 - resultEntry.length)]);
    const received = await receiveResults(Readable.from([archive]), { dir: freshDir() });
    assert.deepEqual(received.result, result);
  });

  test("a name with ../ is refused", async () => {
    await refusedWith(
      Buffer.concat([file("../agent.log", "x"), resultEntry, END]),
      /a path that is not a result file/,
    );
    await refusedWith(Buffer.concat([file("../../../../tmp/x", "x"), resultEntry, END]), /a path/);
  });

  test("an absolute name is refused", async () => {
    await refusedWith(Buffer.concat([file("/etc/passwd", "x"), resultEntry, END]), /a path/);
  });

  test("a name with a directory part in the ustar prefix is refused", async () => {
    const entry = Buffer.concat([header({ name: "agent.log", size: 1, prefix: ".." }), body("x")]);
    await refusedWith(Buffer.concat([entry, resultEntry, END]), /a path/);
  });

  test("a name of . or .. or a trailing slash is refused", async () => {
    await refusedWith(Buffer.concat([file("..", ""), resultEntry, END]), /a path/);
    await refusedWith(Buffer.concat([file("agent.log/", ""), resultEntry, END]), /a path/);
  });

  test("a symlink entry is refused", async () => {
    const archive = await packed([
      { header: { name: "agent.log", type: "symlink", linkname: "/etc/passwd" } },
      { header: { name: "result.json" }, body: resultBytes },
    ]);
    await refusedWith(archive, /a symbolic link/);
  });

  test("a directory entry is refused", async () => {
    const archive = await packed([
      { header: { name: "changes.bundle", type: "directory" } },
      { header: { name: "result.json" }, body: resultBytes },
    ]);
    await refusedWith(archive, /a directory/);
  });

  test("a hard link is refused", async () => {
    const archive = await packed([
      { header: { name: "agent.log", type: "link", linkname: "/etc/shadow" } },
      { header: { name: "result.json" }, body: resultBytes },
    ]);
    await refusedWith(archive, /a hard link/);
  });

  test("devices and FIFOs are refused", async () => {
    for (const [type, what] of [
      ["3", /character device/],
      ["4", /block device/],
      ["6", /FIFO/],
      ["7", /contiguous file/],
      ["Z", /type "Z"/],
    ] as const) {
      await refusedWith(
        Buffer.concat([header({ name: "agent.log", type }), resultEntry, END]),
        what,
      );
    }
  });

  test("a pax header is refused, so it cannot rename an entry", async () => {
    const archive = await packed([
      { header: { name: "agent.log", pax: { path: "../../evil" } }, body: "x" },
      { header: { name: "result.json" }, body: resultBytes },
    ]);
    await refusedWith(archive, /pax extended header/);
    const global = Buffer.concat([
      header({ name: "pax_global_header", type: "g", size: 20 }),
      body("20 path=../../evil\n"),
      resultEntry,
      END,
    ]);
    await refusedWith(global, /pax global header/);
  });

  test("a GNU long name is refused", async () => {
    const long = Buffer.concat([
      header({ name: "././@LongLink", type: "L", size: 12, magic: "gnu" }),
      body("../../evil\0"),
      file("agent.log", "x"),
      resultEntry,
      END,
    ]);
    await refusedWith(long, /GNU long name/);
  });

  test("an old tar header without the ustar magic is refused", async () => {
    await refusedWith(
      Buffer.concat([
        header({ name: "result.json", size: resultBytes.length, magic: "none" }),
        body(resultBytes),
        END,
      ]),
      /not ustar/,
    );
  });

  test("a GNU tar header for a regular file is taken", async () => {
    const dir = freshDir();
    const gnu = Buffer.concat([
      header({ name: "agent.log", size: 2, magic: "gnu" }),
      body("ok"),
      resultEntry,
      END,
    ]);
    const received = await receiveResults(Readable.from([gnu]), { dir });
    assert.equal(received.files["agent.log"]?.bytes, 2);
  });

  test("a name twice is refused", async () => {
    await refusedWith(
      Buffer.concat([file("agent.log", "a"), file("agent.log", "b"), resultEntry, END]),
      /agent\.log twice/,
    );
  });

  test("result.json twice is refused", async () => {
    await refusedWith(Buffer.concat([resultEntry, resultEntry, END]), /data after result\.json/);
  });

  test("an entry after result.json is refused", async () => {
    await refusedWith(
      Buffer.concat([resultEntry, file("agent.log", "late"), END]),
      /data after result\.json/,
    );
  });

  test("an entry after result.json and the end marker is refused", async () => {
    await refusedWith(
      Buffer.concat([resultEntry, END, file("agent.log", "late"), END]),
      /data after result\.json/,
    );
  });

  test("no result.json is refused", async () => {
    await refusedWith(Buffer.concat([file("agent.log", "x"), END]), /ends before result\.json/);
    await refusedWith(file("agent.log", "x"), /no result\.json/);
  });

  test("an empty stream is refused", async () => {
    await refusedWith(Buffer.alloc(0), /no result\.json/);
  });

  test("an unrequested name is refused", async () => {
    const archive = Buffer.concat([file("changes.bundle", "PACK"), resultEntry, END]);
    await refusedWith(archive, /changes\.bundle, which was not asked for/, {
      want: ["agent.log", "transcript.jsonl"],
    });
  });

  test("result.json is wanted even when the list leaves it out", async () => {
    const received = await receiveResults(Readable.from([Buffer.concat([resultEntry, END])]), {
      dir: freshDir(),
      want: [],
    });
    assert.deepEqual(received.result, result);
  });

  test("an unknown name is refused, quoted cleaned", async () => {
    await refusedWith(
      Buffer.concat([file("run.sh", "#!/bin/sh"), resultEntry, END]),
      /a name that is not a result file: "run\.sh"/,
    );
    await refusedWith(
      Buffer.concat([file("\x1b[2J\u202Eevil", "x"), resultEntry, END]),
      /a name that is not a result file/,
    );
  });

  test("a size over its limit is refused from the header, before the body is read", async () => {
    // The stream gives the header and then nothing: waiting for the body would hang this test.
    const claim = header({ name: "changes.bundle", size: LIMITS.changesBytes + 1 });
    await refusedWith(
      stalling(claim),
      /changes\.bundle in the results claims 1073741825 bytes, over its limit of 1073741824/,
    );
  });

  test("a header claiming 10 GiB in base-256 is refused before the body is read", async () => {
    const claim = header({ name: "transcript.jsonl", sizeField: base256(10n * 1024n ** 3n) });
    await refusedWith(stalling(claim), /claims 10737418240 bytes/);
  });

  test("a size past 2^64 in base-256 is refused", async () => {
    const field = new Uint8Array(12).fill(0xff);
    field[0] = 0x80;
    await refusedWith(stalling(header({ name: "agent.log", sizeField: field })), /over its limit/);
  });

  test("a negative base-256 size is refused", async () => {
    const field = new Uint8Array(12).fill(0xff);
    await refusedWith(stalling(header({ name: "agent.log", sizeField: field })), /malformed size/);
  });

  test("a size field that is not octal is refused", async () => {
    await refusedWith(
      stalling(header({ name: "agent.log", sizeField: Buffer.from("12345678x\0\0\0") })),
      /malformed size/,
    );
    await refusedWith(
      stalling(header({ name: "agent.log", sizeField: Buffer.from("-1\0") })),
      /malformed size/,
    );
  });

  test("a tighter limit from the caller is kept, a looser one is ignored", async () => {
    await refusedWith(
      Buffer.concat([file("agent.log", "12345"), resultEntry, END]),
      /over its limit of 4/,
      {
        limits: { "agent.log": 4 },
      },
    );
    const claim = header({ name: "agent.log", size: LIMITS.logBytes + 1 });
    await refusedWith(stalling(claim), /over its limit of 1048576/, {
      limits: { "agent.log": 10 * LIMITS.logBytes },
    });
  });

  test("a result.json over 1 MiB is refused from its header", async () => {
    await refusedWith(
      stalling(header({ name: "result.json", size: LIMITS.resultBytes + 1 })),
      /result\.json in the results claims/,
    );
  });

  test("a bad result.json is refused and every file removed", async () => {
    const bad = Buffer.concat([
      file("agent.log", "x"),
      file("result.json", '{"agent":"x"} trailing'),
      END,
    ]);
    await refusedWith(bad, /result\.json/);
  });

  test("a truncated tar is refused", async () => {
    const archive = Buffer.concat([file("agent.log", "x".repeat(2000)), resultEntry, END]);
    await refusedWith(archive.subarray(0, 700), /cut short in the middle of an entry/);
    await refusedWith(archive.subarray(0, 300), /cut short in the middle of an entry/);
    await refusedWith(archive.subarray(0, archive.length - END.length), /no end marker/);
    await refusedWith(archive.subarray(0, archive.length - 600), /no end marker/);
  });

  test("random bytes are refused", async () => {
    await refusedWith(randomBytes(4096), /not a tar archive/);
  });

  test("a header with a wrong checksum is refused", async () => {
    const archive = Buffer.concat([
      header({ name: "agent.log", size: 0, checksumError: 1 }),
      resultEntry,
      END,
    ]);
    await refusedWith(archive, /checksum/);
  });

  test("trailing garbage after the end is refused", async () => {
    await refusedWith(
      Buffer.concat([resultEntry, END, Buffer.from("garbage")]),
      /data after result\.json/,
    );
    await refusedWith(
      Buffer.concat([resultEntry, END, Buffer.alloc(5000), Buffer.from([1])]),
      /data after result\.json/,
    );
  });

  test("endless zeros after result.json are refused", async () => {
    const zeros = Buffer.alloc(LIMITS.archiveTrailerBytes + 1);
    await refusedWith(Buffer.concat([resultEntry, zeros]), /goes on for over/);
  });

  test("a producer that fails midway leaves nothing behind", async () => {
    const dir = freshDir();
    // The first chunk holds a whole entry, so agent.log is created before the stream fails.
    const chunks = [
      file("agent.log", "x".repeat(600)),
      header({ name: "changes.bundle", size: 5000 }),
    ];
    await assert.rejects(receiveResults(dyingProducer(chunks), { dir }), /the sandbox died/);
    assert.deepEqual(readdirSync(dir), []);
  });

  test("a file already in the directory is not overwritten", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, "agent.log"), "the host's own");
    const archive = Buffer.concat([
      file("transcript.jsonl", "t"),
      file("agent.log", "x"),
      resultEntry,
      END,
    ]);
    await assert.rejects(receiveResults(Readable.from([archive]), { dir }), { code: "EEXIST" });
    assert.equal(readFileSync(join(dir, "agent.log"), "utf8"), "the host's own");
    assert.deepEqual(readdirSync(dir), ["agent.log"], "what it wrote itself is removed");
  });

  test("a symlink in the directory is not followed", async () => {
    const dir = freshDir();
    const target = join(parent, `target-${count++}`);
    writeFileSync(target, "untouched");
    symlinkSync(target, join(dir, "agent.log"));
    const archive = Buffer.concat([file("agent.log", "pwned"), resultEntry, END]);
    await assert.rejects(receiveResults(Readable.from([archive]), { dir }), { code: "EEXIST" });
    assert.equal(readFileSync(target, "utf8"), "untouched");
  });

  test("a producer that floods bytes is cut off and cannot hang the host", async () => {
    // `yes` writes forever; once refused, its stdout is closed and it dies of EPIPE or SIGPIPE.
    const child = spawn("yes", ["not a tar"], { stdio: ["ignore", "pipe", "ignore"] });
    const exited = new Promise<string>((resolve) => {
      child.on("exit", (code, signal) => {
        resolve(signal ?? String(code));
      });
    });
    await refusedWith(child.stdout, /not a tar archive/);
    assert.match(await exited, /^(SIGPIPE|1)$/);
  });
});
