// Which suspended tasks `warden serve` resumes: due, before their deadline, with nobody waiting.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import type { TaskSummary } from "../../src/store/index.js";
import { dueForResume } from "../../src/web/index.js";

const NOW = 1_800_000_000_000;

function task(id: string, more: Partial<TaskSummary>): TaskSummary {
  return {
    id,
    state: "suspended",
    createdAt: NOW - 1000,
    deadline: NOW + 60_000,
    parent: null,
    root: id,
    hop: 0,
    labels: {},
    title: id,
    cancelRequested: false,
    settings: {},
    ...more,
  };
}

test("serve resumes a suspended task whose time has come when nobody waits for it, before its deadline", () => {
  const suspension = (resumeAt?: number) => ({
    reason: "usage_limit" as const,
    at: NOW - 500,
    lastSeq: 3,
    ...(resumeAt === undefined ? {} : { resumeAt }),
  });
  const tasks = [
    task("due", { suspension: suspension(NOW - 1), resumeWaiter: false }),
    task("waited", { suspension: suspension(NOW - 1), resumeWaiter: true }),
    task("early", { suspension: suspension(NOW + 1000), resumeWaiter: false }),
    task("onRequest", { suspension: { ...suspension(), reason: "request" } }),
    task("late", { suspension: suspension(NOW - 1), deadline: NOW }),
    task("running", { state: "running", suspension: suspension(NOW - 1) }),
  ];
  assert.deepEqual(dueForResume(tasks, NOW), ["due"]);
});
