// One message at a time to the executor, and a wait for the reply to one message: delivered,
// the task ended without delivering it, or a timeout.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

test("takeNextMessage moves exactly the oldest pending message to in_flight", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  const run = await store.tasks.attach(id);
  assert.equal(await run.takeNextMessage(), undefined, "an empty inbox gives nothing");
  for (const body of ["one", "two", "three"]) await store.tasks.send(id, body);
  assert.equal((await run.takeNextMessage())?.body, "one");
  assert.deepEqual(
    (await store.tasks.messages(id)).map((m) => m.state),
    ["in_flight", "pending", "pending"],
  );
  assert.equal((await run.takeNextMessage())?.body, "two");
  await run.deliver(1, "did one");
  assert.equal((await run.takeNextMessage())?.body, "three");
  assert.equal(await run.takeNextMessage(), undefined);
  await run.finish({ state: "succeeded" });
});

test("waitReply wakes when the message is delivered, with its reply", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  const run = await store.tasks.attach(id);
  const sent = await store.tasks.send(id, "what now?");
  const waiting = store.tasks.waitReply(id, sent.n, { timeoutMs: 10_000 });
  const started = Date.now();
  setTimeout(() => {
    void (async () => {
      await run.takeNextMessage();
      await run.deliver(sent.n, "this");
    })();
  }, 50);
  const outcome = await waiting;
  assert.equal(outcome.kind, "delivered");
  assert.equal(outcome.message.reply, "this");
  assert.ok(Date.now() - started < 5_000);
  await run.finish({ state: "succeeded" });
});

test("waitReply says when the task ended without delivering the message, and times out", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  const run = await store.tasks.attach(id);
  const sent = await store.tasks.send(id, "anyone?");
  const timedOut = await store.tasks.waitReply(id, sent.n, { timeoutMs: 100 });
  assert.equal(timedOut.kind, "timed_out");
  assert.equal(timedOut.message.state, "pending");
  const waiting = store.tasks.waitReply(id, sent.n, { timeoutMs: 10_000 });
  await run.takeNextMessage();
  await run.finish({ state: "failed", error: "gone" });
  const ended = await waiting;
  assert.equal(ended.kind, "ended");
  assert.equal(ended.terminal.state, "failed");
  assert.equal(ended.message.state, "in_flight");
});
