// A hostile runner of a task that binds a second repository (stood in through the test-only
// WARDEN_TEST_GUEST): whatever it sends for the bound workspace, the task ends failed with a
// clean error, nothing of it can be fetched, and neither repository changes.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import {
  cleanEnv,
  git,
  makeRepo,
  NO_SYSTEM,
  runCli,
  snapshotRepo,
  workspace,
  type Workspace,
} from "./fixtures.js";

const HOSTILE_GUEST = fileURLToPath(
  new URL("./fixtures/hostileWorkspaceGuest.js", import.meta.url),
);

describe("a hostile runner of a task with two repositories", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  let lib: string;
  let libHead: string;
  let appBefore: Awaited<ReturnType<typeof snapshotRepo>>;
  let libBefore: Awaited<ReturnType<typeof snapshotRepo>>;

  before(async () => {
    ws = await workspace();
    ({ repo: lib, head: libHead } = await makeRepo(join(ws.root, "lib"), {
      files: { "lib.txt": "the library\n" },
    }));
    appBefore = await snapshotRepo(ws.repo);
    libBefore = await snapshotRepo(lib);
  });
  after(async () => {
    await ws.cleanup();
  });

  async function attack(name: string): Promise<{ id: string; error: string }> {
    const run = await runCli(
      ws.dataDir,
      [
        "run",
        "--repo",
        ws.repo,
        "--workspace",
        `lib=${lib}`,
        "--prompt",
        "attack",
        "--json",
        "--",
        name,
      ],
      { env: cleanEnv({ WARDEN_TESTING: "1", WARDEN_TEST_GUEST: HOSTILE_GUEST }) },
    );
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const view = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(view.state, "failed");
    assert.notEqual(view.changes, true);
    const id = String(view.id);
    const fetch = await runCli(ws.dataDir, ["fetch", id, "--workspace", "lib"]);
    assert.equal(fetch.code, 1, "there is nothing of lib to fetch");
    assert.match(fetch.stderr, /^warden: task \S+ has no changes to fetch/);
    assert.deepEqual(await snapshotRepo(ws.repo), appBefore, "the task's repository is untouched");
    assert.deepEqual(await snapshotRepo(lib), libBefore, "the bound repository is untouched");
    assert.equal(await git(lib, "branch", "--list"), "* main");
    return { id, error: String(view.error) };
  }

  test("a bundle for a workspace that was not bound is refused", async () => {
    const { id, error } = await attack("unbound");
    assert.match(error, /a name that is not a result file: "?changes\.ghost\.bundle/);
    const results = join(ws.dataDir, "tasks", id, "results");
    assert.equal(existsSync(join(results, "changes.ghost.bundle")), false);
  });

  test("a workspace name that climbs out of the results is refused, and written nowhere", async () => {
    const { id, error } = await attack("climb");
    assert.match(error, /a path that is not a result file/);
    assert.equal(existsSync(join(ws.dataDir, "tasks", id, "lib.bundle")), false);
    assert.equal(existsSync(join(ws.dataDir, "tasks", "lib.bundle")), false);
  });

  test("two bundles for one workspace are refused", async () => {
    const { error } = await attack("twice");
    assert.match(error, /changes\.lib\.bundle twice/);
  });

  test("a bundle for lib that builds on the other repository's base is refused before git reads it", async () => {
    const { id, error } = await attack("other-base");
    assert.match(
      error,
      new RegExp(
        `workspace lib: changes\\.lib\\.bundle was refused: the bundle needs "?${ws.head}"?, which is not the base ${libHead}`,
      ),
    );
    assert.equal(
      existsSync(join(ws.dataDir, "tasks", id, "results", "changes.lib.bundle")),
      false,
      "the refused bundle is deleted",
    );
  });

  test("a real bundle of the other repository's history, relabelled as lib's, fails git's own check", async () => {
    const { id, error } = await attack("other-history");
    assert.match(
      error,
      /workspace lib: changes\.lib\.bundle was refused: the task's changes fail git's strict object check/,
    );
    assert.equal(existsSync(join(ws.dataDir, "tasks", id, "results", "changes.lib.bundle")), false);
  });

  test("a bundle for lib over the size limit is refused from its header", async () => {
    const { error } = await attack("oversized");
    assert.match(
      error,
      /changes\.lib\.bundle in the results claims 1073741825 bytes, over its limit/,
    );
  });

  test("a result that speaks of a workspace the task did not bind fails the task", async () => {
    const { error } = await attack("ghost-claim");
    assert.match(error, /result\.json speaks of a workspace ghost the task did not bind/);
  });
});
