// Permission prompts put to a person: opened by the executor, answered once by someone allowed,
// denied at the timeout or when the run that asked is gone; bounded in number.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { STORE_LIMITS } from "../../src/store/index.js";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

test("a request is answered once: the first answer stands and a second is refused", async () => {
  const { id } = await store.tasks.create({ prompt: "ask" });
  const run = await store.tasks.attach(id);
  const request = await run.askApproval({ tool: "Bash", input: "make deploy" });
  assert.equal(request.n, 1);
  assert.equal(request.state, "pending");
  const answered = await store.tasks.approve(id, 1, "allow", { by: null, reason: "fine" });
  assert.equal(answered.decision, "allow");
  assert.equal(answered.answeredBy, "person");
  assert.equal(answered.reason, "fine");
  await assert.rejects(store.tasks.approve(id, 1, "deny", { by: null }), code("APPROVAL_ANSWERED"));
  await assert.rejects(
    store.tasks.approve(id, 2, "deny", { by: null }),
    code("APPROVAL_NOT_FOUND"),
  );
  const settled = await run.awaitApproval(1, { timeoutMs: 10_000 });
  assert.equal(settled.decision, "allow", "the waiter sees the answer given before it waited");
  await run.finish({ state: "succeeded" });
  assert.equal((await store.tasks.get(id)).approvals.answered, 1);
});

test("two people answering at once: exactly one answer wins", async () => {
  const { id } = await store.tasks.create({ prompt: "ask" });
  const run = await store.tasks.attach(id);
  await run.askApproval({ tool: "Write", input: "/etc/passwd" });
  const other = await store.open();
  const outcomes = await Promise.allSettled([
    store.tasks.approve(id, 1, "allow", { by: null }),
    other.approve(id, 1, "deny", { by: null }),
  ]);
  assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
  const [request] = await store.tasks.approvals(id);
  const winner = outcomes.find((o) => o.status === "fulfilled");
  assert.equal(request?.decision, winner?.status === "fulfilled" ? winner.value.decision : "");
  await run.finish({ state: "succeeded" });
});

test("a request nobody answers is denied at the timeout; an answer a moment before wins", async () => {
  const { id } = await store.tasks.create({ prompt: "ask" });
  const run = await store.tasks.attach(id);
  await run.askApproval({ tool: "Bash", input: "rm -rf build" });
  const started = Date.now();
  const timedOut = await run.awaitApproval(1, { timeoutMs: 200 });
  const took = Date.now() - started;
  assert.ok(took >= 190 && took < 2_000, `denied after ${took} ms of a 200 ms timeout`);
  assert.equal(timedOut.decision, "deny");
  assert.equal(timedOut.answeredBy, "timeout");

  await run.askApproval({ tool: "Bash", input: "make" });
  const waiting = run.awaitApproval(2, { timeoutMs: 5_000 });
  const givenAt = sleep(50)
    .then(() => store.tasks.approve(id, 2, "allow", { by: null }))
    .then(() => Date.now());
  const answered = await waiting;
  const seenAt = Date.now();
  assert.equal(answered.answeredBy, "person");
  // A waiter that slept to the timeout would see the answer almost 5 s after it was given.
  const late = seenAt - (await givenAt);
  assert.ok(late < 1_500, `the waiter saw the answer ${late} ms after it was given`);
  await run.finish({ state: "succeeded" });
});

test("aborting a wait denies the request as ended", async () => {
  const { id } = await store.tasks.create({ prompt: "ask" });
  const run = await store.tasks.attach(id);
  await run.askApproval({ tool: "Bash", input: "x" });
  const controller = new AbortController();
  const waiting = run.awaitApproval(1, { timeoutMs: 60_000, signal: controller.signal });
  controller.abort();
  const settled = await waiting;
  assert.equal(settled.answeredBy, "ended");
  await run.finish({ state: "succeeded" });
});

test("requests a dead executor left waiting are denied when the task is attached again", async () => {
  const { id } = await store.tasks.create({ prompt: "ask" });
  const first = await store.tasks.attach(id);
  await first.askApproval({ tool: "Bash", input: "x" });
  first.release();
  const second = await store.tasks.attach(id);
  const [request] = await store.tasks.approvals(id);
  assert.equal(request?.state, "answered");
  assert.equal(request.answeredBy, "ended");
  await second.finish({ state: "succeeded" });
});

test("a finished task takes no answers, and at most 8 requests wait at once", async () => {
  const { id } = await store.tasks.create({ prompt: "ask" });
  const run = await store.tasks.attach(id);
  for (let i = 0; i < STORE_LIMITS.approvalsPending; i++) {
    await run.askApproval({ tool: "Bash", input: `job ${i}` });
  }
  await assert.rejects(
    run.askApproval({ tool: "Bash", input: "one more" }),
    code("APPROVALS_BUSY"),
  );
  await run.finish({ state: "succeeded" });
  await assert.rejects(store.tasks.approve(id, 1, "allow", { by: null }), code("TASK_FINISHED"));
});

test("a task may answer its descendants' requests, never its own nor its parent's", async () => {
  const parent = await store.tasks.create({ prompt: "parent" });
  const child = await store.tasks.create({ prompt: "child", parent: parent.id });
  const childRun = await store.tasks.attach(child.id);
  await childRun.askApproval({ tool: "Bash", input: "x" });
  await assert.rejects(
    store.tasks.approve(child.id, 1, "allow", { by: child.id }),
    code("APPROVE_NOT_ALLOWED"),
  );
  const parentRun = await store.tasks.attach(parent.id);
  await parentRun.askApproval({ tool: "Bash", input: "y" });
  await assert.rejects(
    store.tasks.approve(parent.id, 1, "allow", { by: child.id }),
    code("APPROVE_NOT_ALLOWED"),
  );
  assert.equal(
    (await store.tasks.approve(child.id, 1, "deny", { by: parent.id })).decision,
    "deny",
  );
  await childRun.finish({ state: "succeeded" });
  await parentRun.finish({ state: "succeeded" });
});

test("a tool name and input are cut to their limits and lone surrogates replaced", async () => {
  const { id } = await store.tasks.create({ prompt: "ask" });
  const run = await store.tasks.attach(id);
  const request = await run.askApproval({
    tool: "T".repeat(1000),
    input: "\ud800" + "i".repeat(10_000),
  });
  assert.equal(Buffer.byteLength(request.tool), STORE_LIMITS.approvalToolBytes);
  assert.ok(Buffer.byteLength(request.input) <= STORE_LIMITS.approvalInputBytes);
  assert.ok(request.input.startsWith("?i"));
  await run.finish({ state: "succeeded" });
});
