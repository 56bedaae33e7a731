// A command's output as the lines a watcher sees while it runs: whole lines, each cut to its
// bound, a begun line sent after a pause, and a flood past the rate counted rather than held.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "../../src/agents/index.js";
import { LiveOutput, type LiveOutputLimits } from "../../src/guest/liveOutput.js";

type Output = Extract<AgentEvent, { type: "output" }>;

const LIMITS: LiveOutputLimits = {
  lineBytes: 16,
  linesPerSecond: 10,
  burst: 5,
  partialLineMs: 50,
};

function collect(limits = LIMITS, now?: () => number): { live: LiveOutput; events: Output[] } {
  const events: Output[] = [];
  const live = new LiveOutput(
    (event) => {
      if (event.type === "output") events.push(event);
    },
    limits,
    now,
  );
  return { live, events };
}

test("whole lines of each stream become output events, however the chunks cut them", () => {
  const { live, events } = collect();
  live.push("stdout", Buffer.from("hel"));
  live.push("stderr", Buffer.from("oops\r\n"));
  live.push("stdout", Buffer.from("lo\nwor"));
  live.push("stdout", Buffer.from("ld\n"));
  live.end();
  assert.deepEqual(
    events.map((e) => [e.stream, e.text, e.cut]),
    [
      ["stderr", "oops", false],
      ["stdout", "hello", false],
      ["stdout", "world", false],
    ],
  );
});

test("a line over the bound is sent cut, and its rest is dropped up to its newline", () => {
  const { live, events } = collect();
  live.push("stdout", Buffer.from("a".repeat(10)));
  live.push("stdout", Buffer.from("b".repeat(1000)));
  live.push("stdout", Buffer.from("c".repeat(1000) + "\nnext\n"));
  live.end();
  assert.deepEqual(
    events.map((e) => [e.text, e.cut]),
    [
      ["a".repeat(10) + "b".repeat(6), true],
      ["next", false],
    ],
  );
});

test("what a carriage return rewrote is sent as a terminal shows it: the last part", () => {
  const { live, events } = collect();
  live.push("stdout", Buffer.from("10%\r50%\r100%\r\n"));
  live.end();
  assert.deepEqual(
    events.map((e) => e.text),
    ["100%"],
  );
});

test("a line begun without its newline is sent after a pause", async () => {
  const { live, events } = collect();
  live.push("stdout", Buffer.from("working..."));
  assert.equal(events.length, 0);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(
    events.map((e) => e.text),
    ["working..."],
  );
  live.push("stdout", Buffer.from(" done\n"));
  live.end();
  assert.deepEqual(
    events.map((e) => e.text),
    ["working...", " done"],
  );
});

test("a flood past the rate is counted: every line is either sent or counted, never held", () => {
  let now = 0;
  const { live, events } = collect(LIMITS, () => now);
  for (let i = 0; i < 1000; i++) {
    live.push(i % 2 === 0 ? "stdout" : "stderr", Buffer.from(`line ${i}\n`));
    now += 1;
  }
  // One second later the rate has room again: the next line says how many were left out.
  now += 1000;
  live.push("stdout", Buffer.from("after\n"));
  live.end();
  const sent = events.filter((e) => e.text !== "").length;
  const skipped = events.reduce((sum, e) => sum + (e.skipped ?? 0), 0);
  assert.equal(sent + skipped, 1001);
  // The burst, what the rate refilled over the flood's second, and the line after it.
  assert.ok(sent <= LIMITS.burst + LIMITS.linesPerSecond + 1, `${sent} lines were sent`);
  const after = events.find((e) => e.text === "after");
  assert.ok((after?.skipped ?? 0) > 0, "the first line after a flood carries its count");
  const last = events.at(-1) ?? assert.fail("no events");
  assert.equal(last.text, "", "the end says how many lines of the other stream were left out");
  assert.ok((last.skipped ?? 0) > 0);
});
