// A fleet's workers under faults: a worker told to stop or killed mid-task, a lease lost under a
// running task, and hostile base bundles. Real nats-server, the built CLI as worker processes,
// real git and bubblewrap, the `command` agent.
import { strict as assert } from "node:assert";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { FleetStore, TASK_OBJECTS } from "../../src/fleet/index.js";
import { git } from "../support/share.js";
import {
  NO_WORKER,
  SHORT_LEASES,
  WORKER_WAIT_MS,
  WorkerFleet,
  type WorkerProcess,
} from "./fixtures/workerProcess.js";

/** Waits until the task's agent has started on a worker, as the fleet's events say. */
async function agentStarted(fleet: WorkerFleet, id: string): Promise<void> {
  const giveUpAt = Date.now() + WORKER_WAIT_MS;
  while (!JSON.stringify(await fleet.events(id)).includes("starting the command agent")) {
    if (Date.now() > giveUpAt) assert.fail(`the agent of ${id} did not start`);
    await sleep(100);
  }
}

/** The task's one end: exactly one `finished` event, and the terminal record's attempt count. */
async function oneEnd(fleet: WorkerFleet, id: string, attempts: number): Promise<void> {
  const finished = (await fleet.events(id)).filter((e) => e.type === "finished");
  assert.equal(finished.length, 1, "exactly one end was recorded");
  const { terminal } = await fleet.fleet.get(id);
  assert.equal(terminal?.attempts, attempts);
}

describe("a fleet's workers under faults", { skip: NO_WORKER }, () => {
  const fleet = new WorkerFleet();
  before(async () => {
    await fleet.open();
  });
  after(async () => {
    await fleet.close();
  });

  test("a worker sent SIGTERM mid-task hands it back and another runs it to success", async () => {
    const first = await fleet.startWorker();
    const id = await fleet.submit("sleep 4; echo done");
    await agentStarted(fleet, id);
    assert.equal((await first.stop("SIGTERM")).code, 0);
    assert.match(first.stderr, new RegExp(`handed back ${id} \\(interrupted\\)`));
    assert.equal((await fleet.fleet.get(id)).state, "interrupted");
    const second = await fleet.startWorker();
    assert.equal(await fleet.ended(id), "succeeded");
    await second.printed(new RegExp(`took ${id} \\(attempt 2\\)`));
    await oneEnd(fleet, id, 2);
    assert.equal((await second.stop()).code, 0);
  });

  test("a worker sent SIGTERM with a grace lets its task finish, then exits", async () => {
    const worker = await fleet.startWorker(["--grace", "60s"]);
    const id = await fleet.submit("sleep 3; echo done");
    await agentStarted(fleet, id);
    worker.child.kill("SIGTERM");
    const stoppedAt = Date.now();
    assert.equal((await worker.exited).code, 0);
    assert.ok(
      Date.now() - stoppedAt < 30_000,
      "it exits once its task ended, not at the grace's end",
    );
    assert.match(worker.stderr, new RegExp(`finished ${id} succeeded`));
    assert.doesNotMatch(worker.stderr, /handed back/);
    await oneEnd(fleet, id, 1);
  });

  test("a worker killed with SIGKILL mid-task leaves it to another worker's reaper", async () => {
    const first = await fleet.startWorker(SHORT_LEASES);
    const id = await fleet.submit("sleep 4; echo done");
    await agentStarted(fleet, id);
    first.child.kill("SIGKILL");
    await first.exited;
    const second = await fleet.startWorker(SHORT_LEASES);
    await second.printed(new RegExp(`freed ${id}`));
    assert.equal(await fleet.ended(id), "succeeded");
    await second.printed(new RegExp(`took ${id} \\(attempt 2\\)`));
    await oneEnd(fleet, id, 2);
    assert.equal((await second.stop()).code, 0);
  });

  test("a worker whose lease is freed under it stops the run at once, and the task ends once", async () => {
    const worker = await fleet.startWorker(SHORT_LEASES);
    const id = await fleet.submit("sleep 30; echo done");
    await agentStarted(fleet, id);
    // A reaper whose clock runs a minute ahead sees the lease expired and frees it.
    const ahead = await FleetStore.open({
      servers: fleet.server.url,
      env: {},
      now: () => Date.now() + 60_000,
    });
    try {
      assert.deepEqual(await ahead.reap(), [id]);
    } finally {
      await ahead.close();
    }
    // Well before the agent's 30 s: the run was stopped, not left to end for nobody.
    await worker.printed(new RegExp(`lost the lease of ${id}`), 15_000);
    // The reaper queued it again, and the same worker, its slot free, takes it anew.
    await worker.printed(new RegExp(`took ${id} \\(attempt 2\\)`));
    await fleet.fleet.cancel(id, { by: null });
    assert.equal(await fleet.ended(id), "cancelled");
    await oneEnd(fleet, id, 2);
    assert.equal((await worker.stop()).code, 0);
  });

  test("a task taken from the queue by a worker that died before leasing it is run by another", async () => {
    // The dead worker: it takes the id and never settles it, then its connection goes.
    const dead = await FleetStore.open({ servers: fleet.server.url, env: {} });
    const id = await fleet.submit("true");
    const queued = await dead.takeQueued(5_000);
    assert.equal(queued?.id, id);
    await dead.close();
    assert.equal((await fleet.fleet.get(id)).state, "created");
    const worker = await fleet.startWorker();
    // The queue hands the id out again once the consumer's ack wait (30 s) has passed.
    assert.equal(await fleet.ended(id, 2 * WORKER_WAIT_MS), "succeeded");
    await worker.printed(new RegExp(`took ${id} \\(attempt 1\\)`));
    await oneEnd(fleet, id, 1);
    assert.equal((await worker.stop()).code, 0);
  });

  describe("with a hostile base bundle", () => {
    /** Submits a task with no worker running, then replaces its base object with `bytes`. */
    async function withBase(bytes: Uint8Array): Promise<string> {
      const id = await fleet.submit("echo should not run > ran.txt");
      await fleet.fleet.objects.putBlob({ name: TASK_OBJECTS.base(id) }, bytes);
      return id;
    }

    /** A real bundle whose HEAD is a commit other than the repository's head. */
    async function otherBundle(): Promise<Uint8Array> {
      const clone = join(fleet.root, "other");
      await git(fleet.root, "clone", "-q", fleet.repo, clone);
      await writeFile(join(clone, "other.txt"), "other\n");
      await git(clone, "add", "other.txt");
      await git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "other");
      const path = join(fleet.root, "other.bundle");
      await git(clone, "bundle", "create", "-q", path, "HEAD");
      return readFile(path);
    }

    async function failedWith(worker: WorkerProcess, id: string, error: RegExp): Promise<void> {
      assert.equal(await fleet.ended(id), "failed");
      const { terminal } = await fleet.fleet.get(id);
      assert.match(terminal?.error ?? "", error);
      await worker.printed(new RegExp(`finished ${id} failed`));
    }

    test("fails the task with a clear error, and the worker goes on with the next", async () => {
      const junk = await withBase(Buffer.from("this is not a git bundle\n"));
      const wrongHead = await withBase(await otherBundle());
      const good = await fleet.submit("echo fine");
      const worker = await fleet.startWorker();
      await failedWith(worker, junk, /the base of task \w+ is not a git bundle/);
      await failedWith(
        worker,
        wrongHead,
        /the base bundle of task \w+ was refused: its head \w+ is not the task's base/,
      );
      assert.equal(await fleet.ended(good), "succeeded");
      assert.equal((await worker.stop()).code, 0);
    });

    test("larger than the worker's bound fails the task before it is read", async () => {
      const id = await fleet.submit("echo should not run");
      const worker = await fleet.startWorker(["--max-base-bytes", "100"]);
      await failedWith(worker, id, /more than the 100 allowed/);
      assert.equal((await worker.stop()).code, 0);
    });
  });
});
