// The host's end of the guest-to-host channel, spoken to over a real unix socket by a client
// that does what a hostile runner would: garbage, floods, huge lines, too many connections,
// a foreign version, replies for messages it never took.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ApprovalDesk } from "../../../src/host/channel/approvalDesk.js";
import {
  NO_RULES,
  type ApprovalRules,
  type ApprovePolicy,
} from "../../../src/host/channel/approvalPolicy.js";
import { parseToolRules } from "../../../src/host/channel/toolRules.js";
import {
  startChannelServer,
  type RunningChannel,
} from "../../../src/host/channel/channelServer.js";
import { CHANNEL_LIMITS, parseChannelResponse } from "../../../src/protocol/index.js";
import { HOST_LIMITS } from "../../../src/host/limits.js";
import { Tasks, type Attachment, type TaskEvent } from "../../../src/store/index.js";
import { RawChannelClient } from "./channelClient.js";

let root: string;
let tasks: Tasks;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "warden-channel-"));
  tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Served {
  id: string;
  attachment: Attachment;
  channel: RunningChannel;
  client(): Promise<RawChannelClient>;
  events(): Promise<TaskEvent[]>;
  close(): Promise<void>;
}

let serial = 0;

async function serve(
  options: {
    policy?: ApprovePolicy;
    rules?: ApprovalRules;
    timeoutMs?: number;
    now?: () => number;
    messagesDir?: string;
  } = {},
): Promise<Served> {
  const { id } = await tasks.create({ prompt: "talk to me" });
  const attachment = await tasks.attach(id);
  const approvals = new ApprovalDesk({
    attachment,
    policy: options.policy ?? "always",
    rules: options.rules ?? NO_RULES,
    timeoutMs: options.timeoutMs ?? 30_000,
  });
  const channel = await startChannelServer({
    path: join(root, `control-${++serial}.sock`),
    attachment,
    approvals,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.messagesDir === undefined ? {} : { messagesDir: options.messagesDir }),
  });
  const clients: RawChannelClient[] = [];
  return {
    id,
    attachment,
    channel,
    client: async () => {
      const client = await RawChannelClient.connect(channel.path);
      clients.push(client);
      return client;
    },
    events: async () => {
      const out: TaskEvent[] = [];
      for await (const event of tasks.watch(id, { follow: false })) out.push(event);
      return out;
    },
    close: async () => {
      for (const client of clients) client.close();
      await channel.close();
      if (!attachment.released) await attachment.finish({ state: "succeeded" });
    },
  };
}

const req = (id: number, op: string, more: Record<string, unknown> = {}) => ({
  v: 1,
  id,
  op,
  ...more,
});

describe("events", () => {
  test("known agent events are recorded as `agent` events; unknown or malformed ones are dropped and counted", async () => {
    const s = await serve();
    const c = await s.client();
    const answer = await c.ask(
      req(1, "events", {
        events: [
          { type: "turn_started", turn: 1 },
          { type: "tool_use", id: "t1", name: "Bash", summary: "git commit -m hi", extra: "x" },
          { type: "usage", inputTokens: 10, outputTokens: 5, costUSD: 0.01 },
          { type: "take_over_the_host", turn: 1 },
          { type: "turn_started", turn: -1 },
          { type: "tool_result", ok: "yes" },
          { type: "assistant_text", text: "é".repeat(3_000), cut: false },
        ],
      }),
    );
    assert.deepEqual(answer, { v: 1, id: 1, ok: true, op: "events", recorded: 4 });
    const agent = (await s.events()).filter((e) => e.type === "agent");
    assert.deepEqual(
      agent.map((e) => e.kind),
      ["turn_started", "tool_use", "usage", "assistant_text"],
    );
    const tool = agent[1] ?? assert.fail("no tool_use");
    assert.equal(tool.name, "Bash");
    assert.equal(tool.summary, "git commit -m hi");
    assert.equal("extra" in tool, false, "fields warden does not know are left out");
    const text = agent[3] ?? assert.fail("no assistant_text");
    assert.ok(Buffer.byteLength(String(text.text)) <= 4096, "assistant text is cut to 4 KiB");
    assert.equal(text.cut, true);
    assert.equal(s.channel.counts.droppedEvents, 3);
    await s.close();
    const last = (await s.events()).find((e) => e.type === "channel");
    assert.equal(last?.droppedEvents, 3, "the drops are recorded when the channel closes");
  });

  test("an events request with more events than the protocol allows is refused whole", async () => {
    const s = await serve();
    const c = await s.client();
    const events = Array.from({ length: CHANNEL_LIMITS.eventsPerRequest + 1 }, (_, i) => ({
      type: "turn_started",
      turn: i,
    }));
    const answer = await c.ask(req(2, "events", { events }));
    assert.equal(answer.ok, false);
    assert.equal((answer.error as { code: string }).code, "bad_request");
    assert.equal((await s.events()).filter((e) => e.type === "agent").length, 0);
    await s.close();
  });
});

describe("a command's output", () => {
  test("output lines are `output` events, cut to their bound, with a cap of their own", async () => {
    // A clock that moves a second a call: the rate is not what this test is about.
    let now = 0;
    const s = await serve({ now: () => (now += 1000) });
    try {
      const c = await s.client();
      const line = (i: number) => ({ type: "output", stream: "stdout", text: `line ${i}` });
      const first = await c.ask(
        req(1, "events", {
          events: [
            { type: "output", stream: "stderr", text: "\u001b[2J" + "é".repeat(1000), skipped: 3 },
            { type: "output", stream: "stdin", text: "not a stream of the agent's" },
            { type: "turn_started", turn: 1 },
          ],
        }),
      );
      assert.deepEqual(first, { v: 1, id: 1, ok: true, op: "events", recorded: 2 });
      let sent = 1;
      for (let id = 2; sent < HOST_LIMITS.outputEvents + 100; id++) {
        const events = Array.from({ length: CHANNEL_LIMITS.eventsPerRequest }, () => line(sent++));
        const answer = await c.ask(req(id, "events", { events }));
        assert.equal(answer.ok, true);
      }
      const after = await c.ask(req(9999, "events", { events: [{ type: "turn_ended", turn: 1 }] }));
      assert.equal(after.recorded, 1, "agent events still have their room");
      const events = await s.events();
      const output = events.filter((e) => e.type === "output");
      assert.equal(output.length, HOST_LIMITS.outputEvents);
      const cut = output[0] ?? assert.fail("no output event");
      assert.equal(cut.stream, "stderr");
      assert.equal(cut.cut, true);
      assert.equal(cut.skipped, 3);
      assert.ok(Buffer.byteLength(String(cut.text)) <= 1024, "an output line is cut to 1 KiB");
      assert.equal(events.filter((e) => e.type === "output_dropped").length, 1);
      assert.deepEqual(
        events.filter((e) => e.type === "agent").map((e) => e.kind),
        ["turn_started", "turn_ended"],
      );
    } finally {
      await s.close();
    }
  });
});

describe("garbage", () => {
  test("lines that are not JSON, of another version, or of an unknown op are answered with errors and the connection lives on", async () => {
    const s = await serve();
    const c = await s.client();
    c.write("not json at all\n");
    assert.equal(((await c.next()).error as { code: string }).code, "bad_request");
    c.write(Buffer.from([0xff, 0xfe, 0x0a]));
    assert.equal(((await c.next()).error as { code: string }).code, "bad_request");
    const wrongVersion = await c.ask({ v: 2, id: 7, op: "inbox.next" });
    assert.equal(wrongVersion.id, 7);
    assert.equal((wrongVersion.error as { code: string }).code, "version");
    const unknown = await c.ask(req(8, "tasks.delete_all"));
    assert.equal((unknown.error as { code: string }).code, "bad_request");
    const extra = await c.ask(req(9, "inbox.next", { task: "someone-else" }));
    assert.equal((extra.error as { code: string }).code, "bad_request", "no field names a task");
    assert.deepEqual(await c.ask(req(10, "inbox.next")), {
      v: 1,
      id: 10,
      ok: true,
      op: "inbox.next",
    });
    await s.close();
  });

  test("a line over the request limit gets one too_big answer and the connection is closed", async () => {
    const s = await serve();
    const c = await s.client();
    // Without a newline: the host must not wait for the end of a line it will never take.
    c.write("x".repeat(CHANNEL_LIMITS.requestBytes + 1));
    const answers = await c.rest();
    assert.equal((answers[0]?.error as { code: string } | undefined)?.code, "too_big");
    assert.equal(c.isClosed, true, "the host closed the connection");
    assert.equal(s.channel.counts.closedForSize, 1);
    // Another connection still works.
    const d = await s.client();
    assert.equal((await d.ask(req(1, "inbox.next"))).ok, true);
    await s.close();
  });

  test("a flood past the rate is answered rate_limited and then cut off", async () => {
    // A clock that stands still: however slowly this machine answers, no token comes back.
    const s = await serve({ now: () => 1_000_000 });
    const c = await s.client();
    const flood = Array.from({ length: 2000 }, (_, i) => JSON.stringify(req(i, "inbox.next")))
      .join("\n")
      .concat("\n");
    c.write(flood);
    const answers = await c.rest(20_000);
    assert.equal(c.isClosed, true, "the host closed the connection");
    const ok = answers.filter((a) => a.ok === true).length;
    const limited = answers.filter(
      (a) => (a.error as { code?: string } | undefined)?.code === "rate_limited",
    ).length;
    assert.equal(ok, CHANNEL_LIMITS.requestsPerSecond, "one second's burst is answered");
    assert.equal(
      limited,
      2 * CHANNEL_LIMITS.requestsPerSecond + 1,
      "then rate_limited, then cut off",
    );
    assert.ok(answers.length < 2000, "the connection was closed before the flood was answered");
    assert.equal(s.channel.counts.closedForRate, 1);
    await s.close();
  });

  test("ten connections at once: four are served, six are refused with too_many", async () => {
    const s = await serve();
    const clients = await Promise.all(Array.from({ length: 10 }, () => s.client()));
    const outcomes = await Promise.all(
      clients.map(async (c, i) => {
        try {
          const answer = await c.ask(req(i, "inbox.next"));
          return answer.ok === true
            ? "served"
            : (answer.error as { code: string }).code === "too_many"
              ? "refused"
              : "other";
        } catch {
          return "closed";
        }
      }),
    );
    assert.equal(outcomes.filter((o) => o === "served").length, CHANNEL_LIMITS.connections);
    assert.equal(outcomes.filter((o) => o === "refused").length, 10 - CHANNEL_LIMITS.connections);
    assert.equal(s.channel.counts.refusedConnections, 10 - CHANNEL_LIMITS.connections);
    await s.close();
  });
});

describe("the inbox", () => {
  test("inbox.next takes exactly one message, oldest first; inbox.reply delivers it with its reply", async () => {
    const s = await serve();
    await tasks.send(s.id, "first");
    await tasks.send(s.id, "second");
    const c = await s.client();
    const one = await c.ask(req(1, "inbox.next"));
    assert.deepEqual(one.message, { n: 1, body: "first" });
    assert.deepEqual(
      (await tasks.messages(s.id)).map((m) => m.state),
      ["in_flight", "pending"],
    );
    const replied = await c.ask(req(2, "inbox.reply", { n: 1, reply: "done with the first" }));
    assert.equal(replied.ok, true);
    const two = await c.ask(req(3, "inbox.next"));
    assert.deepEqual(two.message, { n: 2, body: "second" });
    const messages = await tasks.messages(s.id);
    assert.equal(messages[0]?.state, "delivered");
    assert.equal(messages[0].reply, "done with the first");
    assert.equal(messages[1]?.state, "in_flight");
    const types = (await s.events()).map((e) => e.type);
    assert.ok(types.includes("message_taken"));
    assert.ok(types.includes("message_delivered"));
    await s.close();
  });

  test("a message's files are put in the share's messages/<n>/ before the runner is told of them", async () => {
    const messagesDir = join(root, `share-${++serial}`, "messages");
    const s = await serve({ messagesDir });
    const blob = Buffer.from([0, 1, 2, 255, 10, 13]);
    await tasks.send(s.id, "with files", {
      files: [
        { name: "notes.md", data: Buffer.from("# hi\n") },
        { name: "blob.bin", data: blob },
      ],
    });
    const c = await s.client();
    const answer = await c.ask(req(1, "inbox.next"));
    assert.deepEqual(answer.message, {
      n: 1,
      body: "with files",
      files: [
        { name: "notes.md", bytes: 5 },
        { name: "blob.bin", bytes: 6 },
      ],
    });
    assert.deepEqual(await readFile(join(messagesDir, "1", "blob.bin")), blob);
    assert.equal(await readFile(join(messagesDir, "1", "notes.md"), "utf8"), "# hi\n");
    await s.close();
  });

  test("files changed in the store after they were sent are not handed over: the agent is told, and the events say why", async () => {
    const messagesDir = join(root, `share-${++serial}`, "messages");
    const s = await serve({ messagesDir });
    await tasks.send(s.id, "look", { files: [{ name: "a.txt", data: Buffer.from("original") }] });
    await writeFile(join(root, "data", "tasks", s.id, "message-files", "1", "a.txt"), "tampered");
    const c = await s.client();
    const answer = await c.ask(req(1, "inbox.next"));
    const message = answer.message as { n: number; body: string; files?: unknown };
    assert.equal(message.files, undefined);
    assert.match(
      message.body,
      /^look\n\n\[warden: files were sent with this message, but they could not be delivered: /,
    );
    assert.equal(existsSync(join(messagesDir, "1")), false);
    const refused = (await s.events()).find((e) => e.type === "message_files_refused");
    assert.match(String(refused?.why), /not the file that was sent with message 1/);
    await s.close();
  });

  test("files handed back before a reply are kept with it; pieces for a message not taken, or out of order, are refused", async () => {
    const s = await serve();
    await tasks.send(s.id, "report please");
    const c = await s.client();
    const early = await c.ask(
      req(1, "reply.file", { n: 1, name: "r.md", offset: 0, data: "eA==", last: true }),
    );
    assert.equal((early.error as { code: string }).code, "bad_request", "not taken yet");
    await c.ask(req(2, "inbox.next"));
    const piece = (id: number, offset: number, text: string, last: boolean) =>
      req(id, "reply.file", {
        n: 1,
        name: "r.md",
        offset,
        data: Buffer.from(text).toString("base64"),
        last,
      });
    assert.equal((await c.ask(piece(3, 0, "# re", false))).ok, true);
    const skipped = await c.ask(piece(4, 9, "xx", false));
    assert.match((skipped.error as { message: string }).message, /starts at byte 9, but 4 bytes/);
    assert.equal((await c.ask(piece(5, 4, "port\n", true))).ok, true);
    assert.equal(
      (await c.ask(req(6, "inbox.reply", { n: 1, reply: "warden-file: r.md" }))).ok,
      true,
    );
    const [message] = await tasks.messages(s.id);
    assert.deepEqual(
      message?.replyFiles?.map((f) => [f.name, f.bytes]),
      [["r.md", 9]],
    );
    const refused = (await s.events()).filter((e) => e.type === "reply_files_refused");
    assert.equal(refused.length, 1, "one event for the message's refusals");
    await s.close();
  });

  test("a reply for a message that is not in flight is refused and changes nothing", async () => {
    const s = await serve();
    await tasks.send(s.id, "still pending");
    const c = await s.client();
    for (const n of [1, 2, 16]) {
      const answer = await c.ask(req(n, "inbox.reply", { n, reply: "forged" }));
      assert.equal((answer.error as { code: string }).code, "bad_request");
    }
    const [message] = await tasks.messages(s.id);
    assert.equal(message?.state, "pending");
    assert.equal(message.reply, undefined);
    await s.close();
  });

  test("the largest message, all control characters, fits one response line the guest accepts", async () => {
    const s = await serve();
    const body = "\u0001".repeat(256 * 1024);
    await tasks.send(s.id, body);
    const c = await s.client();
    c.send(req(1, "inbox.next"));
    const line = await new Promise<string>((resolve) => {
      let text = "";
      c.socket.on("data", (chunk: string) => {
        text += chunk;
        if (text.endsWith("\n")) resolve(text.slice(0, -1));
      });
    });
    assert.ok(Buffer.byteLength(line) > 6 * 256 * 1024, "every byte escaped as \\u0001");
    const response = parseChannelResponse(Buffer.from(line));
    assert.equal(response.ok && response.op === "inbox.next" ? response.message?.body : "", body);
    await s.close();
  });

  test("a reply of 256 KiB is taken and cut to 4 KiB by the store", async () => {
    const s = await serve();
    await tasks.send(s.id, "say a lot");
    const c = await s.client();
    await c.ask(req(1, "inbox.next"));
    const answer = await c.ask(
      req(2, "inbox.reply", { n: 1, reply: "y".repeat(CHANNEL_LIMITS.replyBytes) }),
    );
    assert.equal(answer.ok, true);
    const [message] = await tasks.messages(s.id);
    assert.equal(message?.reply?.length, 4096);
    assert.equal(message.replyCut, true);
    await s.close();
  });
});

describe("approvals", () => {
  const ask = (id: number, tool: string, input: unknown) =>
    req(id, "approval.ask", {
      tool,
      input: typeof input === "string" ? input : JSON.stringify(input),
    });

  test("always: allowed at once, except what a deny rule names; each decision is an event", async () => {
    const s = await serve({
      policy: "always",
      rules: { allow: [], deny: parseToolRules(["Bash(git push*)", "Write"], "--deny-tool") },
    });
    const c = await s.client();
    const allowed = await c.ask(ask(1, "Bash", { command: "git commit -m x" }));
    assert.equal(allowed.decision, "allow");
    const pushed = await c.ask(ask(2, "Bash", { command: "git push origin main" }));
    assert.equal(pushed.decision, "deny");
    assert.match(String(pushed.reason), /Bash\(git push\*\)/);
    assert.equal((await c.ask(ask(3, "Write", { file_path: "/x" }))).decision, "deny");
    const answered = (await s.events()).filter((e) => e.type === "approval_answered");
    assert.deepEqual(
      answered.map((e) => [e.decision, e.by]),
      [
        ["allow", "policy"],
        ["deny", "rule"],
        ["deny", "rule"],
      ],
    );
    assert.equal((await tasks.approvals(s.id)).length, 0, "nobody was asked");
    await s.close();
  });

  test("never: denied, except what an allow rule names", async () => {
    const s = await serve({
      policy: "never",
      rules: { allow: parseToolRules(["Bash(git *)"], "--allow-tool"), deny: [] },
    });
    const c = await s.client();
    assert.equal((await c.ask(ask(1, "Bash", { command: "git status" }))).decision, "allow");
    assert.equal((await c.ask(ask(2, "Bash", { command: "rm -rf /" }))).decision, "deny");
    await s.close();
  });

  test("prompt: the call waits for `approve`, and the answer reaches the agent", async () => {
    const s = await serve({ policy: "prompt" });
    const c = await s.client();
    c.send(ask(1, "Bash", { command: "make deploy" }));
    let pending = await tasks.approvals(s.id);
    for (let i = 0; pending.length === 0 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
      pending = await tasks.approvals(s.id);
    }
    assert.equal(pending[0]?.state, "pending");
    assert.equal(pending[0].tool, "Bash");
    assert.equal(pending[0].input, "make deploy");
    const other = await Tasks.open({ dataDir: tasks.dataDir, env: {} });
    await other.approve(s.id, 1, "allow", { by: null, reason: "go ahead" });
    const answer = await c.next();
    assert.equal(answer.decision, "allow");
    assert.match(String(answer.reason), /go ahead/);
    await assert.rejects(other.approve(s.id, 1, "deny", { by: null }), {
      code: "APPROVAL_ANSWERED",
    });
    const types = (await s.events()).map((e) => e.type);
    assert.ok(types.includes("approval_asked"));
    await s.close();
  });

  test("prompt: with no answer the call is denied at the timeout", async () => {
    const s = await serve({ policy: "prompt", timeoutMs: 300 });
    const c = await s.client();
    const started = Date.now();
    const answer = await c.ask(ask(1, "Edit", { file_path: "src/x.ts" }));
    assert.equal(answer.decision, "deny");
    assert.match(String(answer.reason), /nobody answered/);
    assert.ok(Date.now() - started >= 250);
    const [request] = await tasks.approvals(s.id);
    assert.equal(request?.answeredBy, "timeout");
    await s.close();
  });

  test("prompt: prompts still waiting when the channel closes are denied as ended", async () => {
    const s = await serve({ policy: "prompt" });
    const c = await s.client();
    c.send(ask(1, "Bash", { command: "sleep 1000" }));
    for (let i = 0; (await tasks.approvals(s.id)).length === 0 && i < 200; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await s.channel.close();
    const [request] = await tasks.approvals(s.id);
    assert.equal(request?.state, "answered");
    assert.equal(request.answeredBy, "ended");
    assert.equal(existsSync(s.channel.path), false, "the socket is removed");
    await s.close();
  });

  test("prompt: a fifth prompt while four wait for a person is denied at once", async () => {
    const s = await serve({ policy: "prompt" });
    const desk = new ApprovalDesk({
      attachment: s.attachment,
      policy: "prompt",
      rules: NO_RULES,
      timeoutMs: 30_000,
    });
    const waiting = [1, 2, 3, 4].map((i) =>
      desk.ask("Bash", JSON.stringify({ command: `job ${i}` })),
    );
    for (let i = 0; desk.pending < 4 && i < 300; i++) await new Promise((r) => setTimeout(r, 10));
    const fifth = await desk.ask("Bash", JSON.stringify({ command: "job 5" }));
    assert.equal(fifth.decision, "deny");
    assert.match(fifth.reason, /already wait/);
    await desk.close();
    for (const answer of await Promise.all(waiting)) assert.equal(answer.decision, "deny");
    await s.close();
  });

  test("a flood of prompts is answered, but only the first 2000 decisions become events", async () => {
    const s = await serve({ policy: "never" });
    const desk = new ApprovalDesk({
      attachment: s.attachment,
      policy: "never",
      rules: NO_RULES,
      timeoutMs: 1000,
    });
    for (let i = 0; i < 2500; i++) {
      assert.equal((await desk.ask("Bash", `job ${i}`)).decision, "deny");
    }
    const events = await s.events();
    assert.equal(events.filter((e) => e.type === "approval_answered").length, 1999);
    assert.equal(events.filter((e) => e.type === "approval_events_dropped").length, 1);
    await s.close();
  });
});
