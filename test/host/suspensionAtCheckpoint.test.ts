// A suspension waits for the runner's checkpoint before it stops the sandbox: a requested one for
// its boundary's, a usage limit's for the one owed since the agent's last boundary (at once when
// none is owed once the boundary's event had time to come), and either stops anyway once its
// wait is over.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { StopReason } from "../../src/host/stopTriggers.js";
import { SuspensionAtCheckpoint } from "../../src/host/suspensionAtCheckpoint.js";

function stops(): { trigger: (reason: StopReason) => void; reasons: StopReason[] } {
  const reasons: StopReason[] = [];
  return { trigger: (reason) => reasons.push(reason), reasons };
}

describe("a suspension at a checkpoint", () => {
  test("a usage limit with no checkpoint owed stops once it has settled", async () => {
    const s = stops();
    const suspension = new SuspensionAtCheckpoint(60_000, 50);
    suspension.agentEvent("tool_result");
    suspension.kept(s);
    suspension.usageLimit(s);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(s.reasons, ["usage_limit"]);
    assert.equal(suspension.waiting, false);
  });

  test("a usage limit whose boundary's event comes after it still waits for that checkpoint", async () => {
    const s = stops();
    const suspension = new SuspensionAtCheckpoint(60_000, 50);
    suspension.usageLimit(s);
    suspension.agentEvent("tool_result");
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(s.reasons, [], "it waits for the checkpoint");
    suspension.kept(s);
    assert.deepEqual(s.reasons, ["usage_limit"]);
  });

  test("a usage limit after a boundary waits for that boundary's checkpoint", () => {
    const s = stops();
    const suspension = new SuspensionAtCheckpoint(60_000, 50);
    suspension.agentEvent("assistant_text");
    suspension.agentEvent("tool_result");
    suspension.usageLimit(s);
    assert.deepEqual(s.reasons, [], "not before the checkpoint");
    assert.equal(suspension.waiting, true);
    suspension.kept(s);
    assert.deepEqual(s.reasons, ["usage_limit"]);
    suspension.close();
  });

  test("a requested suspension that waits becomes the usage limit's when one comes", () => {
    const s = stops();
    const suspension = new SuspensionAtCheckpoint(60_000, 50);
    suspension.atBoundary(s);
    suspension.usageLimit(s);
    suspension.kept(s);
    assert.deepEqual(s.reasons, ["usage_limit"]);
  });

  test("without a checkpoint, it stops once its wait is over", async () => {
    const s = stops();
    const suspension = new SuspensionAtCheckpoint(50, 10);
    suspension.agentEvent("turn_ended");
    suspension.usageLimit(s);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(s.reasons, ["usage_limit"]);
    assert.equal(suspension.waiting, false);
  });
});
