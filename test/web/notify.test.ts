// Notifications of `warden serve`: a real command run by sh and a real webhook on loopback are
// told each task that ends and each approval that waits, once, with nothing from before the
// start; a failing webhook is tried again, a flood is held to the rate and counted, and a hung
// command is stopped without holding up the next.
import assert from "node:assert/strict";
import { readFile, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import { startNotifier } from "../../src/web/index.js";
import type { Notification } from "../../src/web/notifyEvents.js";
import { NOTIFY_TIMING } from "../../src/web/notifyQueue.js";

/** Fast timing for tests: the same rules, in milliseconds rather than seconds. */
const FAST = { ...NOTIFY_TIMING, backoffMs: 20, timeoutMs: 2_000 };

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The notifications a command appended to `file`, one JSON per line. */
async function linesOf(file: string): Promise<Notification[]> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Notification);
}

interface Hook {
  server: Server;
  url: string;
  received: Notification[];
  /** How many of the first requests answer 500. */
  failFirst: number;
  calls: number;
}

async function startHook(): Promise<Hook> {
  const hook = { received: [], failFirst: 0, calls: 0 } as unknown as Hook;
  hook.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      hook.calls++;
      if (hook.calls <= hook.failFirst) {
        res.writeHead(500).end();
        return;
      }
      hook.received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Notification);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hook.server.listen(0, "127.0.0.1", resolve));
  hook.url = `http://127.0.0.1:${(hook.server.address() as AddressInfo).port}/hook`;
  return hook;
}

describe("notifications of warden serve", () => {
  let root: string;
  let tasks: Tasks;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-notify-"));
    tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test("a command is told each end and each waiting approval once, and nothing from before the start", async () => {
    const early = await tasks.create({ prompt: "ended before the server" });
    const earlyRun = await tasks.attach(early.id);
    await earlyRun.finish({ state: "succeeded" });
    const waiting = await tasks.create({ prompt: "asked before the server" });
    const waitingRun = await tasks.attach(waiting.id);
    await waitingRun.askApproval({ tool: "Bash", input: "old question" });
    const file = join(root, "told.jsonl");
    const problems: string[] = [];
    const notifier = await startNotifier(tasks, {
      commands: [`cat >> '${file}'`],
      onProblem: (message) => problems.push(message),
      timing: FAST,
    });
    try {
      // The older task changes after the start: its old question is still not news.
      waitingRun.appendEvent("note", { text: "still here" });
      const { id } = await tasks.create({ prompt: "ask then fail" });
      const run = await tasks.attach(id);
      await run.askApproval({ tool: "Bash", input: "make deploy" });
      await until(
        () => linesOf(file),
        (lines) => lines.length >= 1,
      );
      await run.finish({ state: "failed", stoppedBy: "turns" });
      const ok = await tasks.create({ prompt: "just succeed" });
      await (await tasks.attach(ok.id)).finish({ state: "succeeded" });
      const lines = await until(
        () => linesOf(file),
        (told) => told.length >= 3,
      );
      assert.deepEqual(
        lines.map((n) => [n.task.id, n.event]),
        [
          [id, "approval"],
          [id, "bound"],
          [ok.id, "succeeded"],
        ],
      );
      assert.deepEqual(lines[0]?.approval, { n: 1, tool: "Bash", input: "make deploy" });
      assert.equal(lines[1]?.task.stoppedBy, "turns");
      assert.ok(
        !lines.some((n) => n.task.id === early.id || n.task.id === waiting.id),
        "nothing from before the start",
      );
      assert.deepEqual(problems, []);
    } finally {
      await notifier.close();
      await waitingRun.finish({ state: "succeeded" });
    }
  });

  test("a webhook that fails twice gets the notification on the third try", async () => {
    const hook = await startHook();
    hook.failFirst = 2;
    const notifier = await startNotifier(tasks, {
      webhooks: [hook.url],
      onProblem: () => undefined,
      timing: FAST,
    });
    try {
      const { id } = await tasks.create({ prompt: "hooked" });
      await (await tasks.attach(id)).finish({ state: "cancelled" });
      await until(
        () => Promise.resolve(hook.received.length),
        (n) => n >= 1,
      );
      assert.equal(hook.calls, 3);
      assert.deepEqual(
        hook.received.map((n) => [n.task.id, n.event]),
        [[id, "cancelled"]],
      );
    } finally {
      await notifier.close();
      hook.server.close();
    }
  });

  test("a flood is held to the burst and the rate, and what was dropped is counted", async () => {
    const hook = await startHook();
    const timing = { ...FAST, burst: 5, perMinute: 60, queue: 10 };
    const notifier = await startNotifier(tasks, {
      webhooks: [hook.url],
      onProblem: () => undefined,
      timing,
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push((await tasks.create({ prompt: `flood ${i}` })).id);
      await Promise.all(
        ids.map(async (id) => (await tasks.attach(id)).finish({ state: "succeeded" })),
      );
      // Past the burst, one a second: wait for the burst and the next two.
      const received = await until(
        () => Promise.resolve(hook.received.length),
        (n) => n >= timing.burst + 2,
      );
      assert.ok(received >= timing.burst + 2, `only ${received} arrived`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(hook.received.length <= timing.burst + 3, "the rate holds the rest back");
      const dropped = hook.received.reduce((sum, n) => sum + (n.dropped ?? 0), 0);
      assert.ok(dropped > 0, "a full queue drops the oldest and says how many");
    } finally {
      await notifier.close();
      hook.server.close();
    }
  });

  test("a command that hangs is stopped at its timeout and the next notification still goes", async () => {
    const file = join(root, "after-hang.jsonl");
    const problems: string[] = [];
    const notifier = await startNotifier(tasks, {
      commands: [
        `read line; case "$line" in *hang*) sleep 60;; *) echo "$line" >> '${file}';; esac`,
      ],
      onProblem: (message) => problems.push(message),
      // Long enough for a shell to start, read and write on a loaded machine (300 ms was not,
      // once, in CI), short beside the hang's 60 s.
      timing: { ...FAST, attempts: 1, timeoutMs: 2000 },
    });
    try {
      const hang = await tasks.create({ prompt: "hang" });
      await (await tasks.attach(hang.id)).finish({ state: "succeeded" });
      const next = await tasks.create({ prompt: "next" });
      await (await tasks.attach(next.id)).finish({ state: "succeeded" });
      const lines = await until(
        () => linesOf(file),
        (told) => told.length >= 1,
      );
      assert.deepEqual(
        lines.map((n) => n.task.id),
        [next.id],
        `the problems told: ${problems.join("; ")}`,
      );
      // The hang is a problem; on a loaded machine the next command's shell may outlive the
      // short timeout too, after it wrote its line, and be a second.
      assert.ok(problems.length >= 1 && problems.length <= 2, problems.join("\n"));
      assert.match(problems[0] ?? "", /stopped|exited/);
    } finally {
      await notifier.close();
    }
  });
});
