// `warden worker` runs a fleet's tasks with the host's own code: tested with a real nats-server,
// the built CLI as separate worker processes, real git and bubblewrap, and the `command` agent.
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { getFile, TASK_OBJECTS } from "../../src/fleet/index.js";
import { git } from "../support/share.js";
import { NO_WORKER, WorkerFleet } from "./fixtures/workerProcess.js";

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
    await getFile(fleet.fleet.objects, TASK_OBJECTS.result(id, "result.json"), result, 1 << 20);
    const bundle = join(fleet.root, `${id}.changes.bundle`);
    await getFile(fleet.fleet.objects, TASK_OBJECTS.result(id, "changes.bundle"), bundle, 1 << 30);
    await git(fleet.repo, "bundle", "verify", bundle);
    await git(fleet.repo, "fetch", "-q", bundle, `refs/heads/warden/task:refs/heads/fetched-${id}`);
    const subject = await git(fleet.repo, "log", "-1", "--format=%s", `fetched-${id}`);
    assert.equal(subject.trim(), "made by the command");
    assert.equal((await worker.stop()).code, 0);
  });
});
