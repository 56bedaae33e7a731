// An agent that floods its output is cut at the contract's limits, never blocks on a full pipe,
// and never makes the runner hold the flood in memory.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { mkdir, open } from "node:fs/promises";
import { test } from "node:test";
import { LIMITS } from "../../src/protocol/index.js";
import { makeTask, receivedOf, runGuest, shellAgent } from "../support/share.js";
import { skipWhen } from "../support/skipWhen.js";

const MiB = 1024 * 1024;

/** Well under the 256 MiB the transcript may hold: proof the flood streamed through. */
const PEAK_MEMORY_MIB = 200;

test("300 MiB on stdout and 2 MiB on stderr are cut at 256 MiB and 1 MiB", async (t) => {
  const fixture = await makeTask({
    settings: {
      command: shellAgent(
        [
          `yes 'a line of the transcript that repeats' | head -c ${300 * MiB}; echo`,
          `yes 'a line of the log' | head -c ${2 * MiB} >&2`,
          // The agent is still running and still heard after its output went over the limit.
          "echo 'after the flood' > after.txt",
          `echo '{"type":"result","subtype":"success"}'`,
        ].join("; "),
      ),
    },
  });
  t.after(() => fixture.cleanup());
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 0, run.stderr);
  const { result } = receivedOf(run);
  assert.deepEqual(result.truncated, ["transcript.jsonl", "agent.log"]);
  assert.equal(receivedOf(run).files["transcript.jsonl"]?.bytes, LIMITS.transcriptBytes);
  assert.equal(receivedOf(run).files["agent.log"]?.bytes, LIMITS.logBytes);
  assert.deepEqual(result.agentResult, { type: "result", subtype: "success" });
  assert.equal(result.leftovers, true, "the agent ran on past the cut");

  const transcript = receivedOf(run).files["transcript.jsonl"];
  assert.ok(transcript);
  const file = await open(transcript.path);
  const start = Buffer.alloc(38);
  await file.read(start, 0, start.length, 0);
  await file.close();
  assert.equal(start.toString(), "a line of the transcript that repeats\n");

  const peak = /peak memory ([0-9]+) MiB/.exec(run.stderr)?.[1];
  assert.ok(peak !== undefined, run.stderr);
  assert.ok(Number(peak) < PEAK_MEMORY_MIB, `the runner peaked at ${peak} MiB`);
});

const tmpfs = spawnSync("bwrap", [
  "--dev-bind",
  "/",
  "/",
  "--size",
  "1048576",
  "--tmpfs",
  "/mnt",
  "true",
]);
const noTmpfs = skipWhen(
  tmpfs.error !== undefined || tmpfs.status !== 0
    ? `bwrap cannot mount a small tmpfs here: ${tmpfs.error?.message ?? tmpfs.stderr.toString()}`
    : false,
);

test(
  "a scratch disk that fills up cuts the transcript there, and the agent is still drained",
  { skip: noTmpfs },
  async (t) => {
    const fixture = await makeTask({
      settings: {
        command: shellAgent(
          `yes 'more than the disk holds' | head -c ${8 * MiB}; echo; echo '{"finished":true}'`,
        ),
      },
    });
    t.after(() => fixture.cleanup());
    await mkdir(fixture.scratch);
    const run = await runGuest(fixture, {
      // The scratch dir is a tmpfs of 1 MiB: the transcript fills it long before its limit.
      wrap: (argv) => [
        "bwrap",
        "--dev-bind",
        "/",
        "/",
        "--size",
        String(MiB),
        "--tmpfs",
        fixture.scratch,
        "--",
        ...argv,
      ],
    });
    assert.equal(run.exitCode, 0, run.stderr);
    const { result, files } = receivedOf(run);
    assert.ok(result.truncated.includes("transcript.jsonl"));
    assert.ok(
      result.warnings.some((w) => /transcript\.jsonl was cut short: .*ENOSPC/.test(w)),
      JSON.stringify(result.warnings),
    );
    assert.deepEqual(result.agentResult, { finished: true }, "the agent ran to its end");
    assert.ok((files["transcript.jsonl"]?.bytes ?? Infinity) <= MiB, "no more than the disk held");
  },
);
