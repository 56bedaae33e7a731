import { strict as assert } from "node:assert";
import { test } from "node:test";
import fc from "fast-check";
import { agentResultOf } from "../../src/guest/agentResult.js";
import { LastLine } from "../../src/guest/lastLine.js";

/** The last line the slow, obvious way. */
function naiveLastLine(bytes: Buffer, max: number): string | undefined {
  const text = bytes.toString("latin1");
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  let last = lines[lines.length - 1] ?? "";
  if (last.endsWith("\r")) last = last.slice(0, -1);
  if (text.length === 0) return undefined;
  return Buffer.byteLength(last, "latin1") > max ? undefined : last;
}

function feed(chunks: Buffer[], max: number): string | undefined {
  const tracker = new LastLine(max);
  for (const chunk of chunks) tracker.push(chunk);
  return tracker.value()?.toString("latin1");
}

test("the last line is found however the output is cut into chunks", () => {
  const byte = fc.constantFrom(0x0a, 0x0d, 0x61, 0x62, 0x7b, 0x20);
  const chunk = fc.array(byte, { maxLength: 30 }).map((bytes) => Buffer.from(bytes));
  fc.assert(
    fc.property(
      fc.array(chunk, { maxLength: 10 }),
      fc.integer({ min: 0, max: 12 }),
      (chunks, max) => {
        const expected = naiveLastLine(Buffer.concat(chunks), max);
        // An empty stream and an empty last line both leave nothing to keep.
        assert.equal(feed(chunks, max) ?? "", expected ?? "");
      },
    ),
    { numRuns: 2000 },
  );
});

test("a last line longer than the limit is not kept, and memory stays bounded", () => {
  const tracker = new LastLine(16);
  // One chunk pushed again and again: whatever buffer memory grows is what the tracker copied
  // and still holds, so the figure does not wait on the garbage collector.
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  const pushed = 1000 * chunk.length;
  const before = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 1000; i++) tracker.push(chunk);
  assert.equal(tracker.value(), undefined);
  const grown = process.memoryUsage().arrayBuffers - before;
  assert.ok(grown < pushed / 4, `the tracker holds ${grown} bytes after ${pushed} pushed`);
  tracker.push(Buffer.from('\n{"ok":true}\n'));
  assert.equal(tracker.value()?.toString(), '{"ok":true}');
});

test("agentResult is only a JSON object within 64 KiB", () => {
  assert.deepEqual(agentResultOf(Buffer.from('{"type":"result","cost":0.5}')), {
    type: "result",
    cost: 0.5,
  });
  for (const line of ["[1,2]", "null", "42", '"text"', "{not json", "\xff{}"]) {
    assert.equal(agentResultOf(Buffer.from(line, "latin1")), undefined, line);
  }
  const big = `{"a":"${"x".repeat(64 * 1024)}"}`;
  assert.equal(agentResultOf(Buffer.from(big)), undefined);
  assert.equal(agentResultOf(undefined), undefined);
});
