import { strict as assert } from "node:assert";
import { test } from "node:test";
import fc from "fast-check";
import { LineSplitter } from "../../src/guest/lineSplitter.js";

function split(chunks: readonly Buffer[], max: number): { lines: string[]; overlong: number } {
  const lines: string[] = [];
  const splitter = new LineSplitter(max, (line) => lines.push(line.toString("latin1")));
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return { lines, overlong: splitter.overlong };
}

test("lines cut anywhere by chunks come out whole, CRLF or LF, the last one without a newline", () => {
  const chunks = ["a fi", "rst line\r", "\nsecond\n\nth", "ird"].map((s) => Buffer.from(s));
  assert.deepEqual(split(chunks, 100), {
    lines: ["a first line", "second", "", "third"],
    overlong: 0,
  });
});

test("any chunking of a stream gives the same lines as splitting it whole", () => {
  fc.assert(
    fc.property(
      fc.array(fc.stringMatching(/^[a-c\r]{0,12}$/), { maxLength: 12 }),
      fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
      (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(""), "latin1");
        const chunks: Buffer[] = [];
        let at = 0;
        for (let i = 0; at < bytes.length; i++) {
          const size = cuts[i % cuts.length] ?? 1;
          chunks.push(bytes.subarray(at, at + size));
          at += size;
        }
        const expected = lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
        assert.deepEqual(split(chunks, 64).lines, expected);
      },
    ),
  );
});

test("a line over the limit is skipped and counted as soon as it is over, and the next one is read", () => {
  let told = 0;
  const lines: string[] = [];
  const splitter = new LineSplitter(
    8,
    (line) => lines.push(line.toString()),
    () => (told += 1),
  );
  splitter.push(Buffer.from("short\nfar too long"));
  assert.equal(told, 1, "told before the line ends");
  splitter.push(Buffer.from(" and longer still, with no end in sight"));
  splitter.push(Buffer.from("...\nok\n12345678\n123456789\n"));
  splitter.end();
  assert.deepEqual(lines, ["short", "ok", "12345678"]);
  assert.equal(splitter.overlong, 2);
  assert.equal(told, 2);
});

test("an endless line is never held: a flood of 64 MiB without a newline stays out of memory", () => {
  const splitter = new LineSplitter(1024, () => assert.fail("no line ends"));
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  const before = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 64; i++) splitter.push(chunk);
  assert.ok(process.memoryUsage().arrayBuffers - before < 16 * 1024 * 1024);
  assert.equal(splitter.overlong, 1);
});
