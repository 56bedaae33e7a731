// The permission sets docs/fleet.md gives for workers and clients, run by a real nats-server
// with the very block the document shows: each user can do its part and no more, and
// credentials are refused with warden's own error, never echoing a password.
import { strict as assert } from "node:assert";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect, nkeys, usernamePasswordAuthenticator } from "@nats-io/transport-node";
import { FleetStore } from "../../src/fleet/index.js";
import { cleanEnv, runCli, workspace, type Workspace } from "../e2e/fixtures.js";
import { CLI_NOT_BUILT } from "../support/cliSuite.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";

const skip = natsServerMissing() || CLI_NOT_BUILT;

const PASSWORDS = { WARDEN_WORKER_PASSWORD: "worker-pw-1", WARDEN_CLIENT_PASSWORD: "client-pw-2" };

/** The authorization block docs/fleet.md shows, as written there. */
async function documentedBlock(): Promise<string> {
  const doc = await readFile(new URL("../../docs/fleet.md", import.meta.url), "utf8");
  const block = /```conf\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block !== undefined, "docs/fleet.md shows a conf block");
  return block;
}

function openAs(server: NatsServer, user: string, password: string): Promise<FleetStore> {
  return FleetStore.open({
    servers: server.url,
    env: {},
    authenticator: usernamePasswordAuthenticator(user, password),
  });
}

describe("the documented permissions of a fleet's users", { skip }, () => {
  let server: NatsServer;
  let client: FleetStore;
  let worker: FleetStore;
  let ws: Workspace;
  before(async () => {
    server = await NatsServer.start({ config: await documentedBlock(), env: PASSWORDS });
    client = await openAs(server, "client", PASSWORDS.WARDEN_CLIENT_PASSWORD);
    worker = await openAs(server, "worker", PASSWORDS.WARDEN_WORKER_PASSWORD);
    ws = await workspace();
  });
  after(async () => {
    await client.close();
    await worker.close();
    await server.stop();
    await ws.cleanup();
  });

  const spec = { prompt: "work", settings: { version: 1 } };

  test("a client makes, lists, messages and cancels tasks", async () => {
    const made = await client.create(spec);
    assert.ok((await client.list()).some((t) => t.id === made.id));
    assert.equal((await client.send(made.id, "hello")).n, 1);
    const cancelled = await client.cancel(made.id);
    assert.deepEqual(cancelled.recorded, [made.id]);
    assert.equal((await client.get(made.id)).state, "cancelled");
  });

  test("a worker takes a task from the queue, leases it, appends events and records its end", async () => {
    const made = await client.create(spec);
    let id: string | undefined;
    for (let i = 0; i < 10 && id !== made.id; i++) id = await worker.nextToRun(1_000);
    assert.equal(id, made.id);
    const held = await worker.attach(made.id);
    await held.appendEvent("worker_note", { text: "on it" });
    await held.finish({ state: "succeeded" });
    assert.doesNotMatch(server.log, /Violation/, "neither user was refused anything it does");
    assert.equal((await client.get(made.id)).state, "succeeded");
    const events = [];
    for await (const event of client.watch(made.id, { follow: false })) events.push(event.type);
    assert.ok(events.includes("worker_note"));
  });

  test("a client may not take tasks from the queue, nor delete or purge the store's streams", async () => {
    await client.create(spec);
    await assert.rejects(client.nextToRun(1_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.match(
      server.log,
      /Violation - User "client", Subject "\$JS\.API\.CONSUMER\.(INFO|MSG\.NEXT)\.WARDEN_QUEUE/,
    );
    const nc = await connect({
      servers: server.url,
      authenticator: usernamePasswordAuthenticator("client", PASSWORDS.WARDEN_CLIENT_PASSWORD),
    });
    try {
      const jsm = await jetstreamManager(nc);
      await assert.rejects(jsm.streams.delete("WARDEN_EVENTS"));
      await assert.rejects(jsm.streams.purge("KV_warden_tasks"));
      await assert.rejects(jsm.streams.add({ name: "ELSEWHERE", subjects: ["elsewhere.>"] }));
    } finally {
      await nc.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.match(
      server.log,
      /Violation - User "client", Subject "\$JS\.API\.STREAM\.DELETE\.WARDEN_EVENTS"/,
    );
    assert.ok((await worker.list()).length > 0, "the tasks are all still there");
  });

  test("a wrong password is refused as FLEET_AUTH, and the password is never printed", async () => {
    await assert.rejects(openAs(server, "client", "not-the-password"), { code: "FLEET_AUTH" });
    const url = server.url.replace("nats://", "nats://client:not-the-password@");
    const ran = await runCli(ws.dataDir, ["--store", url, "ls", "--json"], { env: cleanEnv() });
    assert.equal(ran.code, 1, ran.stderr);
    assert.equal((JSON.parse(ran.stdout) as { code: string }).code, "FLEET_AUTH");
    assert.ok(!(ran.stdout + ran.stderr).includes("not-the-password"));
    const right = server.url.replace(
      "nats://",
      `nats://client:${PASSWORDS.WARDEN_CLIENT_PASSWORD}@`,
    );
    const listed = await runCli(ws.dataDir, ["--store", right, "ls", "-q"], { env: cleanEnv() });
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.trim().split("\n").length >= 3);
  });

  test("a server that is not there is FLEET_UNREACHABLE", async () => {
    const ran = await runCli(ws.dataDir, ["--store", "nats://127.0.0.1:1", "ls", "--json"], {
      env: cleanEnv(),
    });
    assert.equal(ran.code, 1, ran.stderr);
    assert.equal((JSON.parse(ran.stdout) as { code: string }).code, "FLEET_UNREACHABLE");
  });
});

describe("a fleet's user known by an nkey", { skip }, () => {
  let server: NatsServer;
  let ws: Workspace;
  const user = nkeys.createUser();
  before(async () => {
    server = await NatsServer.start({
      config: `authorization { users = [ { nkey: ${user.getPublicKey()} } ] }`,
    });
    ws = await workspace();
  });
  after(async () => {
    await server.stop();
    await ws.cleanup();
  });

  /** `warden ls` with a user config naming the store and the seed file holding `seed`. */
  async function listWith(seed: Uint8Array): Promise<{ code: number | null; stdout: string }> {
    const home = join(ws.root, "home");
    await mkdir(join(home, "warden"), { recursive: true });
    const seedFile = join(home, "fleet.nk");
    await writeFile(seedFile, Buffer.concat([Buffer.from(seed), Buffer.from("\n")]), {
      mode: 0o600,
    });
    await writeFile(
      join(home, "warden", "config.yaml"),
      `store:\n  url: ${server.url}\n  nkeySeedFile: ${seedFile}\n`,
    );
    return runCli(ws.dataDir, ["ls", "--json"], { env: cleanEnv({ XDG_CONFIG_HOME: home }) });
  }

  test("reaches the fleet with the seed file the user's config names, and not with another", async () => {
    const listed = await listWith(user.getSeed());
    assert.equal(listed.code, 0, listed.stdout);
    assert.deepEqual(JSON.parse(listed.stdout), []);
    const refused = await listWith(nkeys.createUser().getSeed());
    assert.equal(refused.code, 1);
    assert.equal((JSON.parse(refused.stdout) as { code: string }).code, "FLEET_AUTH");
  });
});
