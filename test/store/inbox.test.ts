// The inbox: 16 messages over a task's life, bodies of 1 byte to 256 KiB, none once the task
// is finished or cancelling, and concurrent senders never lose or duplicate a message.
import { strict as assert } from "node:assert";
import { after, before, test } from "node:test";
import { Tasks, STORE_LIMITS } from "../../src/store/index.js";
import { Fixture, tempStore, type TempStore } from "./helpers.js";

let store: TempStore;
before(async () => {
  store = await tempStore();
});
after(async () => {
  await store.cleanup();
});

const code = (c: string) => (error: unknown) => (error as { code?: string }).code === c;

test("the 17th message is refused", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  for (let i = 1; i <= 16; i++) assert.equal((await store.tasks.send(id, `m${i}`)).n, i);
  await assert.rejects(store.tasks.send(id, "one too many"), code("INBOX_FULL"));
  assert.equal((await store.tasks.messages(id)).length, 16);
});

test("a body of 0 bytes and one of 256 KiB + 1 are refused; 1 byte and 256 KiB are taken", async () => {
  const { id } = await store.tasks.create({ prompt: "listen" });
  await assert.rejects(store.tasks.send(id, ""), code("MESSAGE_EMPTY"));
  const max = STORE_LIMITS.messageMaxBytes;
  await assert.rejects(store.tasks.send(id, "x".repeat(max + 1)), code("MESSAGE_TOO_BIG"));
  // Bytes count, not characters: 128 Ki two-byte characters and one more byte is over.
  await assert.rejects(store.tasks.send(id, "é".repeat(max / 2) + "x"), code("MESSAGE_TOO_BIG"));
  await assert.rejects(store.tasks.send(id, "half \ud800 a pair"), code("MESSAGE_NOT_TEXT"));
  assert.equal((await store.tasks.send(id, "x")).n, 1);
  assert.equal((await store.tasks.send(id, "x".repeat(max))).n, 2);
  // Refused messages do not count towards the 16.
  assert.equal((await store.tasks.messages(id)).length, 2);
});

test("a message to a finished task or a cancelling one is refused", async () => {
  const done = await store.tasks.create({ prompt: "finish first" });
  const a = await store.tasks.attach(done.id);
  await a.finish({ state: "succeeded" });
  await assert.rejects(store.tasks.send(done.id, "too late"), code("TASK_FINISHED"));

  const busy = await store.tasks.create({ prompt: "being cancelled" });
  const b = await store.tasks.attach(busy.id);
  await store.tasks.cancel(busy.id);
  assert.equal(b.cancelRequested(), true);
  await assert.rejects(store.tasks.send(busy.id, "too late"), code("TASK_CANCELLING"));
  await b.finish({ state: "cancelled" });
});

test("messages go pending, in_flight, delivered with a reply cut to 4 KiB", async () => {
  const { id } = await store.tasks.create({ prompt: "answer" });
  const from = (await store.tasks.create({ prompt: "ask" })).id;
  await store.tasks.send(id, "first", { from });
  await store.tasks.send(id, "second");
  const a = await store.tasks.attach(id);
  const taken = await a.takeMessages();
  assert.deepEqual(
    taken.map((m) => [m.n, m.body, m.state, m.from]),
    [
      [1, "first", "in_flight", from],
      [2, "second", "in_flight", null],
    ],
  );
  assert.deepEqual(await a.takeMessages(), []);
  await assert.rejects(a.deliver(3), code("MESSAGE_STATE"));
  const long = "ü".repeat(3000); // 6000 bytes
  const delivered = await a.deliver(1, long);
  assert.equal(delivered.state, "delivered");
  assert.equal(delivered.replyCut, true);
  assert.equal(delivered.reply, "ü".repeat(2048));
  await assert.rejects(a.deliver(1, "again"), code("MESSAGE_STATE"));
  assert.equal((await store.tasks.get(id)).messages.in_flight, 1);
  // An executor that goes away without delivering leaves its taken messages to the next one.
  a.release();
  const b = await store.tasks.attach(id);
  assert.deepEqual(
    (await b.takeMessages()).map((m) => m.n),
    [2],
  );
  await b.deliver(2, "ok");
  const counts = (await store.tasks.get(id)).messages;
  assert.deepEqual(counts, { pending: 0, in_flight: 0, delivered: 2 });
  await b.finish({ state: "succeeded" });
});

test("a message sent from inside a task says which task sent it", async () => {
  const sender = await store.tasks.create({ prompt: "I send" });
  const target = await store.tasks.create({ prompt: "I receive" });
  const inside = await Tasks.open({ dataDir: store.dataDir, env: { WARDEN_TASK_ID: sender.id } });
  assert.equal((await inside.send(target.id, "hello")).from, sender.id);
});

test("8 processes sending at once never lose or duplicate a message", async () => {
  const { id } = await store.tasks.create({ prompt: "a busy inbox" });
  const senders = Array.from(
    { length: 8 },
    (_, i) => new Fixture("sender", [store.dataDir, id, `p${i}`, "3"]),
  );
  for (const s of senders) assert.equal(await s.line(), "ready");
  for (const s of senders) s.send("go");
  const lines: string[] = [];
  for (const s of senders) {
    for (let i = 0; i < 3; i++) lines.push(await s.line());
  }
  const accepted = lines.filter((l) => l.startsWith("ok ")).map((l) => l.split(" "));
  const refused = lines.filter((l) => l.startsWith("refused "));
  // 24 sends into an inbox of 16: exactly 16 taken and 8 refused as full.
  assert.equal(accepted.length, 16, lines.join("\n"));
  assert.ok(
    refused.every((l) => l.startsWith("refused INBOX_FULL ")),
    refused.join("\n"),
  );
  const inbox = await store.tasks.messages(id);
  assert.deepEqual(
    inbox.map((m) => m.n),
    Array.from({ length: 16 }, (_, i) => i + 1),
  );
  // Each accepted body is in the inbox once, under the number its sender was told.
  assert.deepEqual(
    inbox.map((m) => `${m.n} ${m.body}`).sort(),
    accepted.map(([, n, body]) => `${n} ${body}`).sort(),
  );
  // Each sender's own messages kept their order.
  for (let p = 0; p < 8; p++) {
    const mine = inbox.filter((m) => m.body.startsWith(`p${p}-`)).map((m) => m.body);
    assert.deepEqual(mine, [...mine].sort());
  }
});
