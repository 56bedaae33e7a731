// `warden worker` runs a fleet's tasks with the host's own code: tested with a real nats-server,
// the built CLI as separate worker processes, real git and bubblewrap, and the `command` agent.
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { getFile, TASK_OBJECTS } from "../../src/fleet/index.js";
import { Tasks, type TaskEvent } from "../../src/store/index.js";
import { git } from "../support/share.js";
import { runCli } from "../e2e/fixtures.js";
import { NO_WORKER, WorkerFleet, WORKER_WAIT_MS } from "./fixtures/workerProcess.js";

/** The time of the task's first event of `type` in the fleet. */
function timeOf(events: readonly TaskEvent[], type: string): number {
  const event = events.find((e) => e.type === type);
  assert.ok(event !== undefined, `no ${type} event among ${events.map((e) => e.type).join(" ")}`);
  return event.at;
}

/** Polls `check` until it holds; fails after WORKER_WAIT_MS. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const giveUpAt = Date.now() + WORKER_WAIT_MS;
  while (!(await check())) {
    if (Date.now() > giveUpAt) assert.fail(`${what} did not happen in time`);
    await sleep(100);
  }
}

describe("a fleet's worker", { skip: NO_WORKER }, () => {
  const fleet = new WorkerFleet();
  before(async () => {
    await fleet.open();
  });
  after(async () => {
    await fleet.close();
  });

  test("runs a submitted task and the client fetches the commit it made", async () => {
    const worker = await fleet.startWorker();
    const id = await fleet.submit(
      "echo made > made.txt && git add made.txt && git commit -q -m 'made by the command' && echo the-agent-said-hi",
    );
    assert.equal(await fleet.ended(id), "succeeded");
    await worker.printed(new RegExp(`finished ${id} succeeded`));
    const events = await fleet.events(id);
    const types = events.map((e) => e.type);
    assert.equal(types[0], "attached");
    assert.equal(types.at(-1), "finished");
    assert.ok(
      JSON.stringify(events).includes("starting the command agent"),
      `the agent's progress is among the fleet's events: ${types.join(" ")}`,
    );
    const result = join(fleet.root, `${id}.result.json`);
    await getFile(fleet.fleet.objects, TASK_OBJECTS.result(id, 1, "result.json"), result, 1 << 20);
    const bundle = join(fleet.root, `${id}.changes.bundle`);
    await getFile(
      fleet.fleet.objects,
      TASK_OBJECTS.result(id, 1, "changes.bundle"),
      bundle,
      1 << 30,
    );
    await git(fleet.repo, "bundle", "verify", bundle);
    await git(fleet.repo, "fetch", "-q", bundle, `refs/heads/warden/task:refs/heads/fetched-${id}`);
    const subject = await git(fleet.repo, "log", "-1", "--format=%s", `fetched-${id}`);
    assert.equal(subject.trim(), "made by the command");
    const local = await Tasks.open({ dataDir: join(worker.dataDir, "worker"), env: {} });
    await until("the removal of the local copy", async () => (await local.list()).length === 0);
    assert.deepEqual(await readdir(join(worker.dataDir, "worker", "mirrors")), []);
    // The sandbox read the task's mirror itself: no history cache was filled from it.
    assert.equal(existsSync(join(worker.dataDir, "worker", "history")), false);
    assert.equal((await worker.stop()).code, 0);
  });

  test("with capacity 1 runs three queued tasks one at a time, in queue order", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await fleet.submit(`sleep 1; echo task ${i}`));
    const worker = await fleet.startWorker(["--capacity", "1"]);
    for (const id of ids) assert.equal(await fleet.ended(id), "succeeded");
    const spans: { start: number; end: number }[] = [];
    for (const id of ids) {
      const events = await fleet.events(id);
      spans.push({ start: timeOf(events, "attached"), end: timeOf(events, "finished") });
    }
    for (let i = 1; i < spans.length; i++) {
      const [before, now] = [spans[i - 1], spans[i]];
      assert.ok(before !== undefined && now !== undefined);
      assert.ok(before.end <= now.start, `task ${i} started before task ${i - 1} finished`);
    }
    const took = [...worker.stderr.matchAll(/took (\w+)/g)].map((m) => m[1]);
    assert.deepEqual(took, ids, "the worker took them in the order they were queued");
    assert.equal((await worker.stop()).code, 0);
  });

  test("leaves a task that requires a label it lacks to a worker that has it", async () => {
    const plain = await fleet.startWorker();
    const id = await fleet.submit("echo on the gpu", { require: { gpu: "1" } });
    await sleep(3000);
    assert.equal((await fleet.fleet.get(id)).state, "created");
    assert.doesNotMatch(plain.stderr, new RegExp(`took ${id}`));
    const gpu = await fleet.startWorker(["--label", "gpu=1", "--label", "zone=a"]);
    assert.equal(await fleet.ended(id), "succeeded");
    await gpu.printed(new RegExp(`took ${id}`));
    assert.doesNotMatch(plain.stderr, new RegExp(`took ${id}`));
    assert.equal((await plain.stop()).code, 0);
    assert.equal((await gpu.stop()).code, 0);
  });

  test("carries a fleet send into the running task's inbox and a fleet cancel to its end", async () => {
    const worker = await fleet.startWorker();
    const id = await fleet.submit("echo waiting; sleep 120");
    await worker.printed(new RegExp(`took ${id}`));
    await until("the agent's start", async () =>
      JSON.stringify(await fleet.events(id)).includes("starting the command agent"),
    );
    await fleet.fleet.send(id, "a word from the fleet", { from: null });
    const local = await Tasks.open({ dataDir: join(worker.dataDir, "worker"), env: {} });
    await until("the message's arrival in the local inbox", async () =>
      (await local.messages(id)).some((m) => m.body === "a word from the fleet"),
    );
    const [message] = await fleet.fleet.messages(id);
    assert.equal(message?.state, "in_flight", "the fleet's message is taken by the worker");
    await fleet.fleet.cancel(id, { by: null });
    assert.equal(await fleet.ended(id), "cancelled");
    await worker.printed(new RegExp(`finished ${id} cancelled`));
    await until("the local copy's removal", async () => (await local.list()).length === 0);
    assert.equal((await worker.stop()).code, 0);
  });

  test("with capacity 2 runs two tasks at once, and says what it does as JSON lines", async () => {
    const ids = [await fleet.submit("sleep 3"), await fleet.submit("sleep 3")];
    const worker = await fleet.startWorker(["--capacity", "2", "--json"]);
    for (const id of ids) assert.equal(await fleet.ended(id), "succeeded");
    const [first, second] = await Promise.all(ids.map((id) => fleet.events(id)));
    assert.ok(first !== undefined && second !== undefined);
    assert.ok(
      timeOf(second, "attached") < timeOf(first, "finished"),
      "the second started while the first ran",
    );
    assert.equal((await worker.stop()).code, 0);
    const news = worker.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { event: string; id?: string; end?: { state?: string } });
    for (const id of ids) {
      assert.ok(news.some((n) => n.event === "took" && n.id === id));
      assert.ok(
        news.some((n) => n.event === "ended" && n.id === id && n.end?.state === "succeeded"),
      );
    }
  });

  test("refuses a second worker on a data directory another worker holds", async () => {
    const worker = await fleet.startWorker();
    const second = await runCli(worker.dataDir, ["worker", "--store", fleet.server.url]);
    assert.equal(second.code, 1, second.stderr);
    assert.match(second.stderr, /^warden: another worker uses .*\nhint: /m);
    assert.equal((await worker.stop()).code, 0);
  });

  test("drops a queued id whose task has already finished", async () => {
    const worker = await fleet.startWorker();
    const id = await fleet.submit("true");
    assert.equal(await fleet.ended(id), "succeeded");
    await fleet.fleet.requeue(id);
    await worker.printed(new RegExp(`dropped ${id} from the queue`));
    await oneEndOf(id);
    assert.equal((await worker.stop()).code, 0);
  });

  async function oneEndOf(id: string): Promise<void> {
    const finished = (await fleet.events(id)).filter((e) => e.type === "finished");
    assert.equal(finished.length, 1);
  }
});
