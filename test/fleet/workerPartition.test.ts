// A worker cut off from the network while it runs a task: it runs in its own network namespace,
// the link is cut, its lease runs out and a worker on the host side runs the task as attempt 2;
// once the link is back, the first can record no end, says so, and the fleet holds attempt 2's
// end and results only.
import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import { join } from "node:path";
import { getFile, TASK_OBJECTS } from "../../src/fleet/index.js";
import { until } from "../e2e/fixtures.js";
import { git } from "../support/share.js";
import { NetNamespace, netnsMissing } from "../support/netns.js";
import { skipWhen } from "../support/skipWhen.js";
import { NO_WORKER, SHORT_LEASES, WorkerFleet } from "./fixtures/workerProcess.js";

const skip = skipWhen(NO_WORKER || netnsMissing());

describe("a worker cut off from the network mid-task", { skip }, () => {
  let ns: NetNamespace;
  const fleet = new WorkerFleet();
  before(async () => {
    ns = await NetNamespace.create();
    await fleet.open(ns.hostAddress);
  });
  after(async () => {
    await fleet.close();
    await ns.remove();
  });

  test("loses the task to another worker, and once back records no end and says so", async () => {
    const cutOff = await fleet.startWorker(SHORT_LEASES, (argv, options) =>
      ns.spawn(argv, options),
    );
    const id = await fleet.submit(
      "sleep 8; echo done > done.txt; git add done.txt; git commit -qm 'the work'",
    );
    await cutOff.printed(new RegExp(`took ${id} \\(attempt 1\\)`));
    // Cut while its sandbox runs the agent, not while it fetches the base.
    await until(async () =>
      (await fleet.events(id)).some((e) => /starting the command agent/.test(JSON.stringify(e))),
    );
    await ns.cut();

    const other = await fleet.startWorker(SHORT_LEASES);
    await other.printed(new RegExp(`took ${id} \\(attempt 2\\)`));
    const state = await fleet.ended(id);
    assert.equal(state, "succeeded", JSON.stringify((await fleet.fleet.get(id)).terminal));
    await ns.restore();
    await cutOff.printed(new RegExp(`lost the lease of ${id}`));

    const ended = (await fleet.fleet.get(id)).terminal;
    assert.ok(ended !== undefined);
    assert.equal(ended.attempts, 2, "the end is attempt 2's");
    const events = await fleet.events(id);
    assert.equal(events.filter((e) => e.type === "finished").length, 1, "one end, not two");
    // The results the end names are attempt 2's: its bundle ends at the head the record names.
    const bundle = join(fleet.root, "changes.bundle");
    await getFile(
      fleet.fleet.objects,
      TASK_OBJECTS.result(id, 2, "changes.bundle"),
      bundle,
      1 << 30,
    );
    const heads = await git(fleet.repo, "bundle", "list-heads", bundle);
    const head = ended.details?.head;
    assert.equal(typeof head, "string");
    assert.match(heads, new RegExp(`^${String(head)} `, "m"));
    await cutOff.stop();
    await other.stop();
  });
});
