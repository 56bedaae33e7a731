// A process that starts many sandboxes checks each backend once a while, never once per task,
// and never remembers a check that failed.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { probeBwrapHost } from "../../src/sandbox/bwrapHost.js";
import { sandboxBackend, SandboxCheckMemo, type SandboxBackend } from "../../src/sandbox/index.js";
import { NEEDS_BWRAP } from "./sandboxFixture.js";

/** The backend, with a count of the checks it was asked to make. */
function counted(backend: SandboxBackend): { backend: SandboxBackend; checks: () => number } {
  let checks = 0;
  const check = backend.check.bind(backend);
  const wrapped = Object.assign(Object.create(backend) as SandboxBackend, {
    check: () => {
      checks++;
      return check();
    },
  });
  return { backend: wrapped, checks: () => checks };
}

describe("the memo of sandbox checks", () => {
  test(
    "tasks that ask at once, and soon after, share one trial sandbox of bwrap",
    { skip: NEEDS_BWRAP },
    async () => {
      const memo = new SandboxCheckMemo();
      const { backend, checks } = counted(sandboxBackend("bwrap"));
      const together = await Promise.all([memo.check(backend), memo.check(backend)]);
      const later = await memo.check(backend);
      assert.deepEqual(
        [...together, later].map((check) => check.ok),
        [true, true, true],
      );
      assert.equal(checks(), 1);
    },
  );

  test("a check that failed is made again the next time it is asked", async () => {
    const memo = new SandboxCheckMemo();
    const { backend, checks } = counted(
      sandboxBackend("bwrap", { bwrap: { host: { ...probeBwrapHost(), bwrap: null } } }),
    );
    const first = await memo.check(backend);
    const second = await memo.check(backend);
    assert.equal(first.ok, false);
    assert.equal(second.ok, false);
    assert.equal(checks(), 2);
  });

  test("a pass older than the reuse time is checked again", async () => {
    let now = 1_000;
    const memo = new SandboxCheckMemo({ now: () => now, maxAgeMs: 60_000 });
    const { backend, checks } = counted(sandboxBackend("none"));
    await memo.check(backend);
    now += 60_000;
    await memo.check(backend);
    assert.equal(checks(), 1);
    now += 1;
    await memo.check(backend);
    assert.equal(checks(), 2);
  });
});
