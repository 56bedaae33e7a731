// Gemini's retries, read from its stderr: the fixture is the real stderr of Gemini CLI 0.61
// answered 500, then 429, then a text by the scripted Gemini API.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { GeminiRetryReader } from "../../src/agents/gemini/retries.js";
import type { AgentEvent } from "../../src/agents/index.js";
import { fixtureText } from "./streamKit.js";

function read(text: string): AgentEvent[] {
  const reader = new GeminiRetryReader();
  return [...text.split("\n").flatMap((line) => reader.line(line)), ...reader.end()];
}

test("each retry Gemini reports on stderr is a retry event with its attempt, status and message", () => {
  const events = read(fixtureText("gemini-0.61-retries.stderr"));
  assert.deepEqual(events, [
    { type: "retry", attempt: 1, status: 500, message: "boom" },
    { type: "retry", attempt: 2, status: 429, message: "slow down" },
  ]);
});

test("stack lines, warnings and other stderr text yield nothing", () => {
  assert.deepEqual(
    read("    at throwErrorIfNotOK (file:///x.js:1:2)\n  status: 500\n}\n[STARTUP] Cannot measure"),
    [],
  );
});

test("a retry without a status or a quoted error keeps its reason, cleaned and cut to a line", () => {
  const [event] = read(
    `Attempt 3 failed. Retrying with backoff... fetch failed \u001b[31mred\u001b[0m ${"x".repeat(5000)}`,
  );
  assert.ok(event?.type === "retry", JSON.stringify(event));
  assert.equal(event.attempt, 3);
  assert.equal(event.status, undefined);
  assert.ok(event.message?.startsWith("fetch failed ?[31mred?[0m xxx"), event.message);
  assert.ok(Buffer.byteLength(event.message ?? "") <= 200);
});

/** The median time, in milliseconds, of a few runs of `work`. */
function medianMs(runs: number, work: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(runs / 2)] ?? Infinity;
}

test("a hostile line of megabytes costs less than as many bytes of ordinary lines and yields at most one event", () => {
  const retry = "Attempt 1 failed with status 500. Retrying with backoff... ";
  // Spaces after the retry and a line separator at the very end make a pattern that runs over
  // the whole line backtrack across all of it once per space; the head alone holds neither.
  const hostile = `${retry}${" ".repeat(64)}${'"message":"'.repeat(300_000)}\u2028x`;
  const ordinary = `${retry}{"error":{"message":"boom","code":500}}`;
  const ordinaryLines = Math.ceil(hostile.length / ordinary.length);
  const reader = new GeminiRetryReader();
  const hostileMs = medianMs(5, () => reader.line(hostile));
  const ordinaryMs = medianMs(5, () => {
    for (let i = 0; i < ordinaryLines; i++) reader.line(ordinary);
  });
  // Read from its head, the line takes a small fraction of the ordinary lines' time; read whole,
  // it takes tens of times more. Both are measured in this process, so load slows them alike.
  assert.ok(
    hostileMs < ordinaryMs,
    `the hostile line took ${hostileMs.toFixed(1)} ms, ${ordinaryLines} ordinary lines ${ordinaryMs.toFixed(1)} ms`,
  );
  assert.equal(read(hostile).length, 1);
});
