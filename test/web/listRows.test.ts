// The dashboard's list at many tasks: a finished task's row is kept by the server after the
// first list (its files never change), so a refetch reads only unfinished and new tasks; a
// running task's row still follows its files, and a removed task leaves the list.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import { readOrMakeToken, startWebServer, type RunningWebServer } from "../../src/web/index.js";
import { refuseBackgroundRuns } from "./refuseBackgroundRuns.js";

const PAGE = { html: Buffer.from(""), js: Buffer.from(""), css: Buffer.from("") };

interface Row {
  id: string;
  state: string;
  title: string;
}

describe("the dashboard's list of many tasks", () => {
  let root: string;
  let tasks: Tasks;
  let server: RunningWebServer;
  let token: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-list-rows-"));
    tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
    token = await readOrMakeToken(tasks.dataDir);
    server = await startWebServer({
      tasks,
      host: "127.0.0.1",
      port: 0,
      token,
      page: PAGE,
      runInBackground: refuseBackgroundRuns,
    });
  });
  after(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  async function listed(): Promise<Row[]> {
    const base = server.url.replace(/\/\?token=.*$/, "");
    const answer = await fetch(`${base}/api/tasks`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(answer.status, 200);
    return ((await answer.json()) as { tasks: Row[] }).tasks;
  }

  /** Overwrites a task's spec with bytes no reader accepts: a read of it would drop the row. */
  async function spoil(id: string): Promise<void> {
    await writeFile(join(tasks.dataDir, "tasks", id, "spec.json"), "not json");
  }

  test("a finished task's row is served from memory after the first list: its files are not read again", async () => {
    const { id } = await tasks.create({ prompt: "finished long ago" });
    const run = await tasks.attach(id);
    await run.finish({ state: "succeeded" });
    assert.equal((await listed()).find((row) => row.id === id)?.state, "succeeded");
    await spoil(id);
    const again = (await listed()).find((row) => row.id === id);
    assert.equal(again?.title, "finished long ago", "the kept row is served, not the spoilt file");
  });

  test("an unfinished task's row is read every time: its state and a spoilt spec show", async () => {
    const { id } = await tasks.create({ prompt: "still going" });
    assert.equal((await listed()).find((row) => row.id === id)?.state, "created");
    const run = await tasks.attach(id);
    assert.equal((await listed()).find((row) => row.id === id)?.state, "running");
    await run.finish({ state: "failed" });
    assert.equal((await listed()).find((row) => row.id === id)?.state, "failed");
    const { id: other } = await tasks.create({ prompt: "spoilt while unfinished" });
    assert.ok((await listed()).some((row) => row.id === other));
    await spoil(other);
    assert.ok(!(await listed()).some((row) => row.id === other), "a damaged task is left out");
  });

  test("a finished task removed from the store leaves the list, kept row or not", async () => {
    const { id } = await tasks.create({ prompt: "to be removed" });
    await (await tasks.attach(id)).finish({ state: "succeeded" });
    assert.ok((await listed()).some((row) => row.id === id));
    await tasks.remove(id);
    assert.ok(!(await listed()).some((row) => row.id === id));
  });
});
