// The records the store reads back are checked field by field: a record with a field of the
// wrong kind, out of its range, or a field it never has is damaged, never half trusted.
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const corrupt = { code: "STORE_CORRUPT" };

/** A new task's directory and its spec.json as written. */
async function newTask(): Promise<{ id: string; dir: string; spec: Record<string, unknown> }> {
  const { id } = await store.tasks.create({ prompt: "a task to damage", labels: { team: "a" } });
  const dir = join(store.dataDir, "tasks", id);
  const spec = JSON.parse(readFileSync(join(dir, "spec.json"), "utf8")) as Record<string, unknown>;
  return { id, dir, spec };
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, JSON.stringify(value));
}

test("a spec with a field it never has, or a field of the wrong kind or range, is damaged", async () => {
  const damages: Record<string, unknown>[] = [
    { colour: "blue" },
    { hop: 9 },
    { hop: 1.5 },
    { createdAt: "yesterday" },
    { id: "not-an-id" },
    { version: 2 },
    { labels: { team: 7 } },
    { labels: ["team"] },
    { parent: undefined },
    { ancestors: Array.from({ length: 10 }, () => "0".repeat(26)) },
  ];
  for (const damage of damages) {
    const { id, dir, spec } = await newTask();
    assert.deepEqual((await store.tasks.get(id)).spec.labels, { team: "a" }, "whole at first");
    writeJson(join(dir, "spec.json"), { ...spec, ...damage });
    await assert.rejects(store.tasks.get(id), corrupt, JSON.stringify(damage));
  }
});

test("a terminal record of a state the store does not know, or with a stray field, is damaged", async () => {
  for (const record of [
    { state: "done", at: 1, lastSeq: 0, attempts: 0 },
    { state: "failed", at: 1, lastSeq: -1, attempts: 0 },
    { state: "succeeded", at: 1, lastSeq: 0, attempts: 0, extra: true },
    { state: "succeeded", at: 1, lastSeq: 0 },
    { state: "succeeded", at: 1, lastSeq: 0, attempts: 0, summary: 5 },
  ]) {
    const { id, dir } = await newTask();
    writeJson(join(dir, "terminal.json"), record);
    await assert.rejects(store.tasks.get(id), corrupt, JSON.stringify(record));
  }
  const { id, dir } = await newTask();
  writeJson(join(dir, "terminal.json"), {
    state: "failed",
    stoppedBy: "budget",
    at: 1,
    summary: "stopped",
    details: { costUSD: 0.5 },
    lastSeq: 0,
    attempts: 1,
  });
  const details = await store.tasks.get(id);
  assert.equal(details.state, "failed");
  assert.equal(details.terminal?.stoppedBy, "budget");
});

test("an inbox or approvals file with a message or request out of shape is damaged", async () => {
  const message = { n: 1, from: null, at: 1, body: "hello", state: "pending" };
  for (const damaged of [
    { ...message, n: 0 },
    { ...message, state: "read" },
    { ...message, from: "x" },
  ]) {
    const { id, dir } = await newTask();
    writeJson(join(dir, "inbox.json"), { messages: [damaged] });
    await assert.rejects(store.tasks.messages(id), corrupt, JSON.stringify(damaged));
  }
  const { id, dir } = await newTask();
  writeJson(join(dir, "inbox.json"), { messages: [message] });
  assert.deepEqual(await store.tasks.messages(id), [message]);

  const request = { n: 1, tool: "Bash", input: "ls", askedAt: 1, attempt: 1, state: "pending" };
  for (const damaged of [
    { ...request, decision: "maybe" },
    { ...request, n: "1" },
  ]) {
    const task = await newTask();
    writeJson(join(task.dir, "approvals.json"), { requests: [damaged] });
    await assert.rejects(store.tasks.approvals(task.id), corrupt, JSON.stringify(damaged));
  }
});
