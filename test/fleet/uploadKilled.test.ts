// A client killed with SIGKILL while it creates a fleet task: the base bundle goes up before the
// spec is written, so whatever the moment of the kill, no half task is visible: `list` does not
// show it, the queue hands out no id for it, `resolve` of its id fails; or the task is whole.
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { FleetStore, submitTask, TASK_OBJECTS } from "../../src/fleet/index.js";
import { makeRepo } from "../support/share.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";

const skip = natsServerMissing();
const SUBMITTER = join(import.meta.dirname, "fixtures", "submitter.ts");
/** A file this large makes the base bundle take many chunks, so the upload can be caught. */
const LARGE_FILE_BYTES = 24 * 1024 * 1024;
/** How often the test looks at the object store while the client uploads. */
const POLL_MS = 5;
/** How long the queue is asked for an id before it is taken as empty. */
const QUEUE_WAIT_MS = 1000;

/** The submitter, with the id it names and a way to kill it. */
async function startSubmitter(url: string, repo: string, tmp: string) {
  // Its own TMPDIR: a client killed mid-upload leaves its bundle there, not in the machine's.
  const child = spawn(process.execPath, ["--import", "tsx", SUBMITTER, url, repo], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TMPDIR: tmp },
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  const id = /^id ([0-9a-z]{26})$/.exec(String(first.value))?.[1];
  assert.ok(id !== undefined, `the submitter named its task: ${String(first.value)}\n${stderr}`);
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    id,
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

describe("a client killed while it creates a fleet task", { skip }, () => {
  let server: NatsServer;
  let store: FleetStore;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let root: string;
  let repo: string;
  before(async () => {
    server = await NatsServer.start();
    store = await FleetStore.open({ servers: server.url, env: {} });
    nc = await connect({ servers: server.url });
    jsm = await jetstreamManager(nc);
    root = await mkdtemp(join(tmpdir(), "warden-upload-killed-"));
    const large = randomBytes(LARGE_FILE_BYTES * 0.75).toString("base64");
    ({ repo } = await makeRepo(join(root, "repo"), { files: { "data.txt": large } }));
  });
  after(async () => {
    await nc.close();
    await store.close();
    await server.stop();
    await rm(root, { recursive: true, force: true });
  });

  const chunks = async (): Promise<number> =>
    (await jsm.streams.info("OBJ_warden_objects")).state.messages;

  /** Asserts that nothing of the task `id` is visible, and the queue has nothing for it. */
  const nothingOf = async (id: string): Promise<void> => {
    assert.ok(!(await store.list()).some((t) => t.id === id), "list does not show it");
    await assert.rejects(store.resolve(id), { code: "TASK_NOT_FOUND" });
    await assert.rejects(store.get(id), { code: "TASK_NOT_FOUND" });
    await assert.rejects(store.attach(id), { code: "TASK_NOT_FOUND" });
    assert.equal(await store.nextToRun(QUEUE_WAIT_MS), undefined, "the queue hands out no id");
  };

  test("in the middle of the base's upload leaves no task anyone can see or take", async () => {
    const before = await chunks();
    const client = await startSubmitter(server.url, repo, root);
    const base = TASK_OBJECTS.base(client.id);
    while ((await chunks()) <= before + 1) await sleep(POLL_MS);
    await client.kill();
    assert.equal(await store.objects.info(base), null, "it was killed before the base was whole");
    await nothingOf(client.id);
  });

  test("right after the base is whole leaves no task, or a whole one queued once", async () => {
    const client = await startSubmitter(server.url, repo, root);
    const base = TASK_OBJECTS.base(client.id);
    while ((await store.objects.info(base)) === null) await sleep(POLL_MS);
    await client.kill();
    const listed = (await store.list()).some((t) => t.id === client.id);
    if (!listed) {
      await nothingOf(client.id);
      return;
    }
    assert.equal((await store.get(client.id)).state, "created");
    assert.equal(await store.nextToRun(QUEUE_WAIT_MS), client.id);
    assert.equal(await store.nextToRun(QUEUE_WAIT_MS), undefined);
  });

  test("after such kills a client creates and queues a task as ever", async () => {
    const { summary } = await submitTask(store, {
      repo,
      prompt: "after the killed clients",
      agent: "command",
      command: ["true"],
    });
    assert.deepEqual(
      (await store.list()).map((t) => t.id).filter((id) => id === summary.id),
      [summary.id],
    );
    assert.equal(await store.nextToRun(QUEUE_WAIT_MS), summary.id);
  });
});
