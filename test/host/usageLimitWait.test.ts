// What a usage limit means for a task, and how a stop to suspend ends an attach: pure decisions.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { HOST_LIMITS } from "../../src/host/limits.js";
import { suspensionEnd } from "../../src/host/suspensionEnd.js";
import { limitVerdict, UsageLimitWait } from "../../src/host/usageLimitWait.js";

const NOW = 1_800_000_000_000;
const MINUTE = 60_000;
const FACTS = { base: "b".repeat(40), attempt: 1, sandbox: "bwrap" };

test("a reset within seconds is the agent's to retry; one before the deadline is waited for; one at or past it is not", () => {
  assert.deepEqual(limitVerdict(NOW + 1000, NOW + 60 * MINUTE, NOW), { kind: "retry" });
  assert.deepEqual(limitVerdict(NOW + 10 * MINUTE, NOW + 60 * MINUTE, NOW), {
    kind: "wait",
    resumeAt: NOW + 10 * MINUTE + HOST_LIMITS.usageLimitMarginMs,
  });
  assert.deepEqual(limitVerdict(NOW + 60 * MINUTE, NOW + 60 * MINUTE, NOW), {
    kind: "past_deadline",
    resetAt: NOW + 60 * MINUTE,
  });
});

test("the first limit that is not a retry decides, and a stop armed after it fires at once", () => {
  const told: string[] = [];
  const wait = new UsageLimitWait(
    () => NOW + 60 * MINUTE,
    () => NOW,
    (d) => told.push(d.verdict.kind),
  );
  wait.report({ api: "anthropic", resetAt: NOW + 1000, source: "retry-after" });
  assert.equal(wait.deciding, undefined);
  wait.report({ api: "anthropic", resetAt: NOW + 5 * MINUTE, source: "retry-after" });
  wait.report({ api: "anthropic", resetAt: NOW + 90 * MINUTE, source: "retry-after" });
  assert.deepEqual(told, ["wait"]);
  let stopped = 0;
  wait.arm(() => stopped++);
  assert.equal(stopped, 1);
});

test("a stop to suspend suspends; a usage limit waits or fails the task, stopped by it; any other stop is judged as before", () => {
  assert.deepEqual(suspensionEnd("suspend", undefined, FACTS), { suspend: { reason: "request" } });
  const limit = { api: "anthropic" as const, resetAt: NOW + 5 * MINUTE, source: "retry-after" };
  const waits = suspensionEnd(
    "usage_limit",
    { limit, verdict: { kind: "wait", resumeAt: NOW + 6 * MINUTE } },
    FACTS,
  );
  assert.ok(waits !== undefined && "suspend" in waits);
  assert.equal(waits.suspend.reason, "usage_limit");
  assert.equal(waits.suspend.resumeAt, NOW + 6 * MINUTE);
  const fails = suspensionEnd(
    "usage_limit",
    { limit, verdict: { kind: "past_deadline", resetAt: limit.resetAt } },
    FACTS,
  );
  assert.ok(fails !== undefined && "state" in fails);
  assert.equal(fails.state, "failed");
  assert.equal(fails.stoppedBy, "usage_limit");
  assert.match(fails.error ?? "", /after the task's deadline/);
  assert.equal(suspensionEnd("cancel", undefined, FACTS), undefined);
  assert.equal(suspensionEnd(undefined, undefined, FACTS), undefined);
});
