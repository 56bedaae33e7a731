// The runner's end of the channel against a real socket: requests in order, one at a time,
// answers checked; timeouts, refusals, hostile answers; and the events sender's batches and
// bounds.
import { strict as assert } from "node:assert";
import { test, type TestContext } from "node:test";
import type { AgentEvent } from "../../src/agents/index.js";
import { ChannelRefusedError, HostChannelError } from "../../src/guest/errors.js";
import { EventSender } from "../../src/guest/eventSender.js";
import { HostChannel } from "../../src/guest/hostChannel.js";
import { CHANNEL_LIMITS } from "../../src/protocol/index.js";
import { startFakeHost, type FakeHost, type FakeHostOptions } from "./fakeHost.js";

async function connect(
  t: TestContext,
  options: FakeHostOptions = {},
  requestMs = 5_000,
): Promise<{ host: FakeHost; channel: HostChannel }> {
  const host = await startFakeHost(options);
  t.after(() => host.close());
  const channel = await HostChannel.open(host.socket, { requestMs });
  t.after(() => {
    channel.close();
  });
  return { host, channel };
}

const text = (i: number): AgentEvent => ({
  type: "assistant_text",
  text: `event ${i}`,
  cut: false,
});

test("requests go one at a time, in the order asked, each with its own id", async (t) => {
  const { host, channel } = await connect(t, { messages: ["first", "second"] });
  const answers = await Promise.all([
    channel.request({ op: "inbox.next" }),
    channel.request({ op: "events", events: [text(1)] }),
    channel.request({ op: "inbox.next" }),
    channel.request({ op: "inbox.next" }),
  ]);
  assert.deepEqual(
    answers.map((a) => (a.op === "inbox.next" ? (a.message?.body ?? "none") : a.op)),
    ["first", "events", "second", "none"],
  );
  assert.deepEqual(
    host.recorded.map((r) => r.request.id),
    [1, 2, 3, 4],
  );
});

test("a refusal fails that request only; the channel goes on", async (t) => {
  const { channel } = await connect(t);
  await assert.rejects(
    channel.request({ op: "inbox.reply", n: 7, reply: "to nothing" }),
    (error: unknown) => error instanceof ChannelRefusedError && error.refusal === "bad_request",
  );
  assert.equal(channel.broken, undefined);
  assert.equal((await channel.request({ op: "inbox.next" })).ok, true);
});

test("a request over the wire's limit is not sent, and the channel goes on", async (t) => {
  const { host, channel } = await connect(t);
  await assert.rejects(
    channel.request({ op: "inbox.reply", n: 1, reply: "x".repeat(CHANNEL_LIMITS.requestBytes) }),
    /over 524288 bytes was not sent/,
  );
  assert.equal(channel.broken, undefined);
  await channel.request({ op: "inbox.next" });
  assert.deepEqual(
    host.recorded.map((r) => r.request.op),
    ["inbox.next"],
  );
});

test("a host that does not answer in time breaks the channel: the waiting and the queued fail, later ones at once", async (t) => {
  const { channel } = await connect(t, { misbehave: () => ({ kind: "silent" }) }, 200);
  const started = performance.now();
  const first = channel.request({ op: "inbox.next" });
  const queued = channel.request({ op: "events", events: [text(1)] });
  await assert.rejects(first, /did not answer a inbox\.next request within 0\.2 s/);
  await assert.rejects(queued, HostChannelError);
  assert.ok(performance.now() - started < 2_000);
  await assert.rejects(channel.request({ op: "inbox.next" }), HostChannelError);
});

test("approval.ask waits for the person however long the request timeout is", async (t) => {
  const { channel } = await connect(
    t,
    {
      approve: async () => {
        await new Promise((resolve) => setTimeout(resolve, 600));
        return { decision: "allow", reason: "a person said yes" };
      },
    },
    100,
  );
  const answer = await channel.request({ op: "approval.ask", tool: "Bash", input: "{}" });
  assert.deepEqual([answer.decision, answer.reason], ["allow", "a person said yes"]);
  assert.equal(channel.broken, undefined);
});

for (const [what, bytes, why] of [
  ["garbage", "not json\n", /not a channel response/],
  [
    "an answer to another request",
    '{"v":1,"id":5,"ok":true,"op":"inbox.reply"}\n',
    /request 5 where 1/,
  ],
  [
    "an answer of another kind",
    '{"v":1,"id":1,"ok":true,"op":"inbox.reply"}\n',
    /answered a inbox\.next request as inbox\.reply/,
  ],
  [
    "an answer with unknown fields",
    '{"v":1,"id":1,"ok":true,"op":"inbox.next","more":1}\n',
    /not a channel response/,
  ],
  [
    "a message without a number",
    '{"v":1,"id":1,"ok":true,"op":"inbox.next","message":{"body":"x"}}\n',
    /not a channel response/,
  ],
  [
    "bytes that are not UTF-8",
    Buffer.from(
      '{"v":1,"id":1,"ok":true,"op":"inbox.next","message":{"n":1,"body":"\xff"}}\n',
      "latin1",
    ),
    /not a channel response/,
  ],
] as const) {
  test(`${what} breaks the channel with a reason`, async (t) => {
    const { channel } = await connect(t, {
      misbehave: () => ({ kind: "garbage", bytes }),
    });
    await assert.rejects(channel.request({ op: "inbox.next" }), why);
    assert.match(channel.broken?.message ?? "", why);
  });
}

test("an answer nobody asked for breaks the channel", async (t) => {
  const { channel } = await connect(t, {
    misbehave: (request) =>
      request.op === "events"
        ? {
            kind: "garbage",
            bytes: `{"v":1,"id":${request.id},"ok":true,"op":"events","recorded":1}\n{"v":1,"id":9,"ok":true,"op":"inbox.reply"}\n`,
          }
        : { kind: "answer" },
  });
  await channel.request({ op: "events", events: [text(1)] });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.match(channel.broken?.message ?? "", /an answer nobody asked for/);
});

test("a socket that is not there fails to open with HostChannelError", async () => {
  await assert.rejects(HostChannel.open("/nonexistent/control.sock"), HostChannelError);
});

test("events coalesce: a burst of 200 goes in 4 requests of at most 64, in order", async (t) => {
  const { host, channel } = await connect(t);
  const sender = new EventSender(channel);
  for (let i = 0; i < 200; i++) sender.add(text(i));
  await sender.flush(5_000);
  const sizes = host.recorded.map((r) => (r.request.op === "events" ? r.request.events.length : 0));
  assert.deepEqual(sizes, [64, 64, 64, 8]);
  assert.deepEqual(
    host.events().map((e) => e.text),
    Array.from({ length: 200 }, (_, i) => `event ${i}`),
  );
  assert.deepEqual(sender.warnings(), []);
});

test("a result goes at once, without waiting for the coalescing delay", async (t) => {
  const { host, channel } = await connect(t);
  const sender = new EventSender(channel, {
    coalesceMs: 60_000,
    pendingEvents: 100,
    eventRequestsInFlight: 2,
  });
  sender.add(text(1));
  sender.add({ type: "result", ok: true });
  await host.waitForEvent((e) => e.type === "result", 2_000);
  assert.deepEqual(
    host.events().map((e) => e.type),
    ["assistant_text", "result"],
  );
  await sender.flush(1_000);
});

test("a host that never answers: events past the bound are dropped and counted, results kept, flush ends on time", async (t) => {
  const { channel } = await connect(t, { misbehave: () => ({ kind: "silent" }) }, 60_000);
  const sender = new EventSender(channel, {
    coalesceMs: 5,
    pendingEvents: 10,
    eventRequestsInFlight: 2,
  });
  for (let i = 0; i < 100; i++) sender.add(text(i));
  sender.add({ type: "result", ok: true });
  const started = performance.now();
  await sender.flush(300);
  assert.ok(performance.now() - started < 2_000);
  const warnings = sender.warnings();
  assert.match(warnings[0] ?? "", /90 events were dropped \(more than 10 were waiting\)/);
  assert.match(warnings[1] ?? "", /11 of the agent's events were still on their way/);
});

test("an event over the wire's limit is not sent, and counted", async (t) => {
  const { host, channel } = await connect(t);
  const sender = new EventSender(channel);
  // Control characters: each is six bytes of JSON, so 4 KiB of them is 24 KiB on the wire.
  sender.add({ type: "assistant_text", text: "\u0001".repeat(4096), cut: false });
  sender.add(text(1));
  await sender.flush(2_000);
  assert.deepEqual(
    host.events().map((e) => e.text),
    ["event 1"],
  );
  assert.match(sender.warnings().join(), /1 of the agent's events were over 16384 bytes/);
});

test("settle waits for every request asked to be answered, and no longer than its bound", async (t) => {
  const { channel } = await connect(t, { misbehave: () => ({ kind: "slow", ms: 200 }) });
  const answered: string[] = [];
  void channel.request({ op: "inbox.next" }).then(() => answered.push("next"));
  void channel.request({ op: "events", events: [text(1)] }).then(() => answered.push("events"));
  await channel.settle(5_000);
  assert.deepEqual(answered, ["next", "events"]);
  await channel.settle(5_000);

  const { channel: silent } = await connect(t, { misbehave: () => ({ kind: "silent" }) }, 60_000);
  void silent.request({ op: "inbox.next" }).catch(() => undefined);
  const started = performance.now();
  await silent.settle(150);
  assert.ok(performance.now() - started < 1_000);
});
