// A client's task in a fleet: its base is in the object store before its spec exists, and what a
// fleet cannot run is refused before anything is made.
import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import { join } from "node:path";
import { FleetStore, getFile, submitTask, TASK_OBJECTS } from "../../src/fleet/index.js";
import { git, hostFixture, type HostFixture } from "../host/fixtures.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";

const skip = natsServerMissing();

describe("a task submitted to a fleet", { skip }, () => {
  let server: NatsServer;
  let fleet: FleetStore;
  let fixture: HostFixture;
  before(async () => {
    server = await NatsServer.start();
    fleet = await FleetStore.open({ servers: server.url, env: {} });
    fixture = await hostFixture();
  });
  after(async () => {
    await fleet.close();
    await server.stop();
    await fixture.cleanup();
  });

  test("has its base bundle in the fleet, with the base as the bundle's head", async () => {
    const { summary, start } = await submitTask(fleet, {
      repo: fixture.repo,
      prompt: "work",
      agent: "command",
      command: ["true"],
      require: { gpu: "1" },
    });
    assert.equal(start.base, fixture.head);
    const bundle = join(fixture.root, "fetched.bundle");
    await getFile(fleet.objects, TASK_OBJECTS.base(summary.id), bundle, 64 * 1024 * 1024);
    const heads = await git(fixture.root, "bundle", "list-heads", bundle);
    assert.match(heads, new RegExp(`^${fixture.head} HEAD$`, "m"));
    const details = await fleet.get(summary.id);
    assert.equal(details.spec.base, fixture.head);
    assert.deepEqual((details.spec.settings as { require?: unknown }).require, { gpu: "1" });
  });

  test("that binds a repository of this machine is refused, and nothing is made", async () => {
    const before = await fleet.list();
    await assert.rejects(
      submitTask(fleet, {
        repo: fixture.repo,
        prompt: "work",
        agent: "command",
        command: ["true"],
        workspaces: [{ name: "lib", path: fixture.repo }],
      }),
      { code: "BAD_OPTION" },
    );
    assert.equal((await fleet.list()).length, before.length);
  });
});
