// When the host stops a sandbox: the pure rule, and the trigger on a real cancel file.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { dueReason, StopTriggers, type StopReason } from "../../src/host/stopTriggers.js";

test("a cancel request comes before the bounds, and the deadline before the host's limit", () => {
  const base = { cancelRequested: false, now: 1000, deadline: 2000, hostLimitAt: 3000 };
  assert.equal(dueReason(base), undefined);
  assert.equal(dueReason({ ...base, cancelRequested: true, now: 5000 }), "cancel");
  assert.equal(dueReason({ ...base, now: 2000 }), "deadline");
  assert.equal(dueReason({ ...base, deadline: 9000, now: 3000 }), "host_timeout");
  assert.equal(
    dueReason({ ...base, deadline: 9000, hostLimitAt: undefined, now: 8999 }),
    undefined,
  );
});

test("a cancel file written into the task directory stops the sandbox once", async () => {
  const dir = await mkdtemp(join(tmpdir(), "warden-stop-"));
  try {
    const cancel = join(dir, "cancel");
    const reasons: StopReason[] = [];
    const seen = new Promise<void>((resolve) => {
      const triggers = new StopTriggers({
        dir,
        cancelRequested: () => existsSync(cancel),
        deadline: Date.now() + 60_000,
        hostLimitAt: undefined,
        now: Date.now,
        onStop: (reason) => {
          reasons.push(reason);
          triggers.trigger("deadline");
          triggers.close();
          resolve();
        },
      });
    });
    const started = Date.now();
    await writeFile(cancel, "{}");
    await seen;
    assert.deepEqual(reasons, ["cancel"]);
    assert.ok(Date.now() - started < 1000, "the cancel file is noticed within the poll");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("an aborted signal stops the sandbox as an interrupt", () => {
  const controller = new AbortController();
  const reasons: StopReason[] = [];
  const triggers = new StopTriggers({
    dir: tmpdir(),
    cancelRequested: () => false,
    deadline: Date.now() + 60_000,
    hostLimitAt: undefined,
    now: Date.now,
    signal: controller.signal,
    onStop: (reason) => reasons.push(reason),
  });
  controller.abort();
  triggers.close();
  assert.deepEqual(reasons, ["interrupt"]);
});
