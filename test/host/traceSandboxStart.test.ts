// A traced task (WARDEN_TRACE) times the steps of its sandbox's start, so that a trace says
// where that start's time goes: bwrap making the namespaces, and, for a task with bounds, the
// cgroup made before bwrap runs and joined while bwrap makes the namespaces.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createTask, executeTask } from "../../src/host/index.js";
import { TRACE_ENV, type TracedPhase } from "../../src/lang/index.js";
import { TEST_LIMITS } from "../support/testBounds.js";
import { hostFixture, NO_SANDBOX, type HostFixture } from "./fixtures.js";

/** As root the task has the default bounds, which need a cgroup (test/support/testBounds.ts). */
const BOUNDED = process.getuid?.() === 0;

let fixture: HostFixture;
before(async () => {
  fixture = await hostFixture();
});
after(async () => {
  await fixture.cleanup();
});

/** The one phase of that name, checked to be there once. */
function only(phases: readonly TracedPhase[], name: string): TracedPhase {
  const found = phases.filter((phase) => phase.name === name);
  assert.equal(found.length, 1, `${name}: ${found.length} phases`);
  const [phase] = found;
  if (phase === undefined) throw new Error(name);
  return phase;
}

/** True when `inner` began and ended within `outer`. */
function within(inner: TracedPhase, outer: TracedPhase): boolean {
  return inner.start >= outer.start && inner.end <= outer.end && inner.start <= inner.end;
}

test(
  "a traced task in bwrap times the steps of its sandbox's start",
  { skip: NO_SANDBOX },
  async () => {
    const file = join(fixture.root, "trace.jsonl");
    const { summary } = await createTask(fixture.tasks, {
      repo: fixture.repo,
      prompt: "nothing\n",
      agent: "command",
      command: ["true"],
      limits: TEST_LIMITS,
    });
    const outcome = await executeTask(fixture.tasks, summary.id, { env: { [TRACE_ENV]: file } });
    assert.equal(outcome.kind === "finished" ? outcome.terminal.state : outcome.kind, "succeeded");
    const phases = (await readFile(file, "utf8"))
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as TracedPhase)
      .filter((phase) => phase.side === "host");
    const start = only(phases, "start the sandbox");
    const namespaces = only(phases, "sandbox: bwrap makes the namespaces");
    assert.ok(within(namespaces, start), "bwrap's part lies within the sandbox's start");
    const cgroupSteps = phases.filter((phase) => /^sandbox: .*cgroup$/.test(phase.name));
    if (!BOUNDED) {
      assert.deepEqual(cgroupSteps, [], "a task without bounds makes no cgroup");
      return;
    }
    const made = only(phases, "sandbox: make its cgroup");
    const joined = only(phases, "sandbox: join its cgroup");
    assert.ok(within(made, start) && within(joined, start), "both lie within the start");
    assert.ok(made.end <= namespaces.start, "the cgroup is made before bwrap runs");
    assert.ok(joined.start >= namespaces.start, "and joined once bwrap runs");
    assert.ok(
      joined.end >= namespaces.end,
      "until its first process is in, after bwrap said its pid",
    );
  },
);
