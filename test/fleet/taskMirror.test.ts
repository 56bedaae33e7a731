// The mirror between a fleet task and its local copy on a worker, in one process: the test plays
// the local executor (the host's part) with the filesystem store, and a person with the fleet's
// store. Real nats-server.
import { strict as assert } from "node:assert";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { FleetStore, type FleetAttachment } from "../../src/fleet/index.js";
import { TaskMirror } from "../../src/fleet/worker/taskMirror.js";
import { Tasks, type Attachment } from "../../src/store/index.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";

const skip = natsServerMissing();

/** Polls `check` until it gives a value; fails after 10 s. */
async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const giveUpAt = Date.now() + 10_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) assert.fail(`${what} did not happen in time`);
    await sleep(50);
  }
}

describe("a worker's mirror of a running task", { skip }, () => {
  let server: NatsServer;
  let fleet: FleetStore;
  let root: string;
  let local: Tasks;
  before(async () => {
    server = await NatsServer.start();
    fleet = await FleetStore.open({ servers: server.url, env: {} });
    root = await mkdtemp(join(tmpdir(), "warden-mirror-"));
    local = await Tasks.open({ dataDir: root, env: {} });
  });
  after(async () => {
    await fleet.close();
    await server.stop();
    await rm(root, { recursive: true, force: true });
  });

  /** A fleet task leased as a worker leases it, and its local copy attached as the host does. */
  async function running(): Promise<{ id: string; leased: FleetAttachment; run: Attachment }> {
    const { id } = await fleet.create({ prompt: "mirror me", parent: null });
    const leased = await fleet.attach(id);
    await local.create({ prompt: "mirror me", parent: null }, { id });
    return { id, leased, run: await local.attach(id) };
  }

  function quietEnds(lost: { error?: Error } = {}) {
    return {
      leaseLost: (error: Error) => {
        lost.error = error;
      },
      warn: (text: string) => {
        assert.fail(`the mirror warned: ${text}`);
      },
    };
  }

  test("appends the local events to the fleet in order and once each", async () => {
    const { id, leased, run } = await running();
    const mirror = new TaskMirror(fleet, leased, local, quietEnds());
    mirror.start();
    for (let i = 0; i < 20; i++) run.appendEvent("progress", { n: i });
    await until("the first events' arrival", async () =>
      (await fleetEvents(id)).length > 5 ? true : undefined,
    );
    for (let i = 20; i < 40; i++) run.appendEvent("progress", { n: i });
    await mirror.stop();
    const events = await fleetEvents(id);
    assert.deepEqual(
      events.filter((e) => e.type === "progress").map((e) => e.n),
      Array.from({ length: 40 }, (_, i) => i),
    );
    assert.equal(events.filter((e) => e.type === "attached").length, 1, "the fleet's own attach");
    await leased.finish({ state: "succeeded" });
    await run.finish({ state: "succeeded" });
  });

  test("carries a message in, its reply out, a prompt out, its answer in, and a cancel in", async () => {
    const { id, leased, run } = await running();
    const mirror = new TaskMirror(fleet, leased, local, quietEnds());
    mirror.start();
    const sent = await fleet.send(id, "hello from the fleet", { from: null });
    const taken = await until("the message's arrival", () => run.takeNextMessage());
    assert.equal(taken.body, "hello from the fleet");
    await run.deliver(taken.n, "hello back");
    const delivered = await until("the reply in the fleet", async () =>
      (await fleet.messages(id)).find((m) => m.n === sent.n && m.state === "delivered"),
    );
    assert.equal(delivered.reply, "hello back");

    const asked = await run.askApproval({ tool: "Bash", input: "rm -rf build" });
    const prompt = await until("the prompt in the fleet", async () =>
      (await fleet.approvals(id)).find((r) => r.tool === "Bash" && r.state === "pending"),
    );
    assert.equal(prompt.input, "rm -rf build");
    await fleet.approve(id, prompt.n, "deny", { by: null, reason: "not that" });
    const answered = await until("the answer in the local copy", async () =>
      (await local.approvals(id)).find((r) => r.n === asked.n && r.state === "answered"),
    );
    assert.equal(answered.decision, "deny");
    assert.equal(answered.reason, "not that");

    await fleet.cancel(id, { by: null });
    await until("the cancel in the local copy", () =>
      Promise.resolve(run.cancelRequested() ? true : undefined),
    );
    await mirror.stop();
    await leased.finish({ state: "cancelled" });
    await run.finish({ state: "cancelled" });
  });

  test("tells the worker at once when the fleet's lease is lost", async () => {
    const { id, leased, run } = await running();
    const lost: { error?: Error } = {};
    const mirror = new TaskMirror(fleet, leased, local, quietEnds(lost));
    mirror.start();
    const ahead = await FleetStore.open({
      servers: server.url,
      env: {},
      now: () => Date.now() + 10 * 60_000,
    });
    try {
      assert.deepEqual(await ahead.reap(), [id]);
    } finally {
      await ahead.close();
    }
    const error = await until("the lease's loss", () => Promise.resolve(lost.error));
    assert.equal((error as { code?: string }).code, "LEASE_LOST");
    run.appendEvent("progress", { n: "after the loss" });
    await mirror.stop();
    assert.ok(
      !(await fleetEvents(id)).some((e) => e.n === "after the loss"),
      "nothing is written once the lease is lost",
    );
    await run.finish({ state: "failed", error: "lost" });
  });

  async function fleetEvents(id: string): Promise<Record<string, unknown>[]> {
    const events: Record<string, unknown>[] = [];
    for await (const event of fleet.watch(id, { follow: false })) events.push(event);
    return events;
  }
});
