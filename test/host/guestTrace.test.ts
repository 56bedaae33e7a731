import { strict as assert } from "node:assert";
import { test } from "node:test";
import { keepGuestPhases } from "../../src/host/guestTrace.js";
import { HOST_LIMITS } from "../../src/host/limits.js";
import { phaseTrace, type TracedPhase } from "../../src/lang/index.js";

function kept(line: string): TracedPhase[] {
  const phases: TracedPhase[] = [];
  keepGuestPhases(
    line,
    phaseTrace("host", (phase) => phases.push(phase)),
  );
  return phases;
}

test("the runner's trace line becomes guest phases", () => {
  const line = `warden-guest: trace ${JSON.stringify([{ side: "x", name: "git: read HEAD", start: 1, end: 3 }])}`;
  assert.deepEqual(kept(line), [{ side: "guest", name: "git: read HEAD", start: 1, end: 3 }]);
});

test("a trace line from a hostile sandbox keeps only well-formed phases, and a bounded number", () => {
  assert.deepEqual(kept("warden-guest: trace {not json"), []);
  assert.deepEqual(kept('warden-guest: trace {"name":"x"}'), []);
  assert.deepEqual(kept('warden-guest: done [{"name":"x","start":1,"end":2}]'), []);
  const odd = [
    { name: 7, start: 1, end: 2 },
    { name: "backwards", start: 5, end: 2 },
    { name: "no end", start: 1, end: null },
    null,
    { name: "x".repeat(1000), start: 1, end: 2 },
  ];
  const phases = kept(`warden-guest: trace ${JSON.stringify(odd)}`);
  assert.equal(phases.length, 1);
  assert.equal(phases[0]?.name.length, HOST_LIMITS.guestTraceNameChars);
  const many = Array.from({ length: 2 * HOST_LIMITS.guestTracePhases }, () => ({
    name: "n",
    start: 1,
    end: 2,
  }));
  assert.equal(
    kept(`warden-guest: trace ${JSON.stringify(many)}`).length,
    HOST_LIMITS.guestTracePhases,
  );
});
