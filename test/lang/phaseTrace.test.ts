import { strict as assert } from "node:assert";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { NO_TRACE, TRACE_ENV, traceFromEnv, type TracedPhase } from "../../src/lang/index.js";

test("without WARDEN_TRACE nothing is timed and nothing is written", () => {
  assert.equal(traceFromEnv({}), NO_TRACE);
  assert.equal(traceFromEnv({ [TRACE_ENV]: "" }), NO_TRACE);
  assert.equal(NO_TRACE.on, false);
});

test("a traced phase is one JSON line with its side, name and times in order", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "warden-trace-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, "trace.jsonl");
  const trace = traceFromEnv({ [TRACE_ENV]: file });
  const end = trace.start("first");
  end();
  end();
  await trace.around("second", Promise.resolve(1));
  await assert.rejects(trace.around("third", Promise.reject(new Error("no"))));
  const phases = (await readFile(file, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as TracedPhase);
  assert.deepEqual(
    phases.map((phase) => [phase.side, phase.name]),
    [
      ["host", "first"],
      ["host", "second"],
      ["host", "third"],
    ],
    "a phase ended twice is written once, and a failed one still is",
  );
  for (const phase of phases) assert.ok(phase.start <= phase.end && phase.start > 1.7e12);
});
