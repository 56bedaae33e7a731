// A process that starts many sandboxes checks each backend once a while, never once per task,
// and never remembers a check that failed.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { probeBwrapHost } from "../../src/sandbox/bwrapHost.js";
import {
  sandboxBackend,
  SandboxCheckMemo,
  type BackendCheck,
  type SandboxBackend,
} from "../../src/sandbox/index.js";
import { countedChecks, NEEDS_BWRAP } from "./sandboxFixture.js";

describe("the memo of sandbox checks", () => {
  test(
    "tasks that ask at once, and soon after, share one trial sandbox of bwrap",
    { skip: NEEDS_BWRAP },
    async () => {
      const memo = new SandboxCheckMemo();
      const { backend, checks } = countedChecks(sandboxBackend("bwrap"));
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
    const { backend, checks } = countedChecks(
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
    const { backend, checks } = countedChecks(sandboxBackend("none"));
    await memo.check(backend);
    now += 60_000;
    await memo.check(backend);
    assert.equal(checks(), 1);
    now += 1;
    await memo.check(backend);
    assert.equal(checks(), 2);
  });

  test(
    "a check that takes longer than the reuse time still answers those who asked while it ran",
    { timeout: 5_000 },
    async () => {
      let now = 1_000;
      const memo = new SandboxCheckMemo({ now: () => now, maxAgeMs: 100 });
      let finish: (value: BackendCheck) => void = () => undefined;
      let checks = 0;
      const slow = Object.assign(Object.create(sandboxBackend("none")) as SandboxBackend, {
        check: () => {
          checks++;
          return new Promise<BackendCheck>((resolve) => {
            finish = resolve;
          });
        },
      });
      const first = memo.check(slow);
      const second = memo.check(slow);
      now += 500;
      finish({ ok: true, detail: "slow" });
      assert.deepEqual(await Promise.all([first, second]), [
        { ok: true, detail: "slow" },
        { ok: true, detail: "slow" },
      ]);
      assert.equal(checks, 1);
    },
  );
});
