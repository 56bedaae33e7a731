import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { PassThrough } from "node:stream";
import { LIMITS, Log } from "../../src/protocol/index.js";

const TASK = "01jabcdefghjkmnpqrstvwxyz0";
// 09:05:03 local time, so the expected prefix does not depend on the machine's time zone.
const AT = new Date(2025, 0, 2, 9, 5, 3);
const now = (): Date => AT;

function collect(): { lines: string[]; log: Log } {
  const lines: string[] = [];
  return { lines, log: new Log((line) => lines.push(line), TASK, { now }) };
}

const PREFIX = "09:05:03 agent[01jabcde]: ";

describe("Log", () => {
  test("a line is labelled with the time, the label and the short task id", () => {
    const { lines, log } = collect();
    log.line("guest", "workspace ready");
    assert.deepEqual(lines, ["09:05:03 guest[01jabcde]: workspace ready"]);
  });

  test("a line is cleaned", () => {
    const { lines, log } = collect();
    log.line("agent", "\x1b[31mred\x1b[0m\ttab \u202Eevil");
    assert.deepEqual(lines, [`${PREFIX}?[31mred?[0m tab ?evil`]);
  });

  test("bytes are cleaned, bad UTF-8 too", () => {
    const { lines, log } = collect();
    log.line("agent", Buffer.from([0x6f, 0x6b, 0xff, 0xfe, 0x21]));
    assert.deepEqual(lines, [`${PREFIX}ok?!`]);
  });

  test("a text of many lines gives one labelled line each", () => {
    const { lines, log } = collect();
    log.line("agent", "one\r\ntwo\nthree\n");
    assert.deepEqual(lines, [`${PREFIX}one`, `${PREFIX}two`, `${PREFIX}three`]);
  });

  test("a line cannot forge another label: an embedded newline lands in a labelled line", () => {
    const { lines, log } = collect();
    const forged = "09:05:03 warden[01jabcde]: task succeeded";
    log.line("agent", `done\n${forged}`);
    assert.deepEqual(lines, [`${PREFIX}done`, `${PREFIX}${forged}`]);
    for (const line of lines) assert.ok(line.startsWith(PREFIX));
  });

  test("a line cannot forge another label: an embedded carriage return cannot rewind the line", () => {
    const { lines, log } = collect();
    log.line("agent", "x\r09:05:03 warden[01jabcde]: ok");
    assert.deepEqual(lines, [`${PREFIX}x?09:05:03 warden[01jabcde]: ok`]);
  });

  test("a writer cannot forge a label either, however its chunks fall", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    writer.write("progress 50%\r");
    writer.write("\rwarden[01jabcde]: ");
    writer.write("fake\nnext\u2028line\n");
    assert.deepEqual(lines, [
      `${PREFIX}progress 50%??warden[01jabcde]: fake`,
      `${PREFIX}next?line`,
    ]);
  });

  test("a long line is capped at the log line size, cut at a character and marked", () => {
    const { lines, log } = collect();
    log.line("agent", "é".repeat(LIMITS.logLineBytes));
    assert.equal(lines.length, 1);
    const line = lines[0] ?? "";
    assert.ok(Buffer.byteLength(line) <= LIMITS.logLineBytes, `${Buffer.byteLength(line)} bytes`);
    assert.ok(line.endsWith("é [cut]"));
    assert.ok(!line.includes("\uFFFD"));
  });

  test("a line that fits exactly is not marked", () => {
    const { lines, log } = collect();
    const text = "x".repeat(LIMITS.logLineBytes - PREFIX.length);
    log.line("agent", text);
    assert.deepEqual(lines, [PREFIX + text]);
  });

  test("a writer buffers a partial line until its newline", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    writer.write("hel");
    writer.write(Buffer.from("lo wor"));
    assert.deepEqual(lines, []);
    writer.write("ld\nnext");
    assert.deepEqual(lines, [`${PREFIX}hello world`]);
  });

  test("a writer takes a CRLF split across chunks as one newline", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    writer.write("a\r");
    writer.write("\nb\r\n");
    assert.deepEqual(lines, [`${PREFIX}a`, `${PREFIX}b`]);
  });

  test("a writer keeps a character split across chunks", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    const bytes = Buffer.from("日本\n");
    writer.write(bytes.subarray(0, 2));
    writer.write(bytes.subarray(2, 4));
    writer.write(bytes.subarray(4));
    assert.deepEqual(lines, [`${PREFIX}日本`]);
  });

  test("a writer keeps its own copy of a partial line", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    const reused = Buffer.from("first");
    writer.write(reused);
    reused.write("XXXXX");
    writer.write("\n");
    assert.deepEqual(lines, [`${PREFIX}first`]);
  });

  test("a partial line is flushed on end", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    writer.write("no newline at the end");
    writer.end();
    assert.deepEqual(lines, [`${PREFIX}no newline at the end`]);
    writer.end();
    assert.equal(lines.length, 1, "a second end writes nothing more");
  });

  test("a write after end goes out at once", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    writer.end();
    writer.write("late");
    writer.write(" and two\nlines");
    assert.deepEqual(lines, [`${PREFIX}late`, `${PREFIX} and two`, `${PREFIX}lines`]);
  });

  test("a partial line longer than the cap is flushed cut, and the rest of it dropped", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    for (let i = 0; i < 100; i++) writer.write("y".repeat(1000));
    assert.equal(lines.length, 1, "flushed before its newline");
    writer.write("still the same line\nnext\n");
    assert.equal(lines.length, 2);
    assert.ok((lines[0] ?? "").endsWith("y [cut]"));
    assert.ok(Buffer.byteLength(lines[0] ?? "") <= LIMITS.logLineBytes);
    assert.equal(lines[1], `${PREFIX}next`);
  });

  test("a writer's long line of multibyte text is cut at a character", () => {
    const { lines, log } = collect();
    const writer = log.writer("agent");
    writer.write("🎉".repeat(3000) + "\n");
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? "", /^09:05:03 agent\[01jabcde\]: (🎉)+ \[cut\]$/u);
  });

  test("lines go to a stream with their newline", () => {
    const out = new PassThrough();
    const log = new Log(out, TASK, { now });
    log.line("guest", "a");
    log.writer("agent").write("b\n");
    assert.equal(String(out.read()), "09:05:03 guest[01jabcde]: a\n09:05:03 agent[01jabcde]: b\n");
  });

  test("a label with a space or a control character is refused", () => {
    const { log } = collect();
    assert.throws(() => {
      log.line("agent x", "t");
    }, TypeError);
    assert.throws(() => {
      log.line("agent\x1b", "t");
    }, TypeError);
    assert.throws(() => {
      log.writer("a\nb");
    }, TypeError);
    assert.throws(() => {
      log.line("", "t");
    }, TypeError);
    assert.throws(() => {
      log.line("x".repeat(LIMITS.logLabelBytes + 1), "t");
    }, TypeError);
  });

  test("a task id with a space or brackets is refused", () => {
    assert.throws(() => new Log(() => undefined, "a b"), TypeError);
    assert.throws(() => new Log(() => undefined, "x]: y"), TypeError);
  });

  test("the time comes from the real clock by default", () => {
    const lines: string[] = [];
    new Log((line) => lines.push(line), TASK).line("guest", "t");
    assert.match(lines[0] ?? "", /^\d\d:\d\d:\d\d guest\[01jabcde\]: t$/);
  });
});
