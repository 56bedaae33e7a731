// A runner that sends hostile results (stood in through the test-only WARDEN_TEST_GUEST): the
// task ends failed with a clean error, and nothing of what it sent reaches the user's repository.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import {
  cleanEnv,
  git,
  NO_SYSTEM,
  runCli,
  snapshotRepo,
  workspace,
  type Workspace,
} from "./fixtures.js";

const HOSTILE_GUEST = fileURLToPath(new URL("./fixtures/hostileGuest.js", import.meta.url));
// Control characters, bidi overrides: nothing of the kind may reach a terminal.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("a hostile runner", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  let before_: Awaited<ReturnType<typeof snapshotRepo>>;

  before(async () => {
    ws = await workspace();
    before_ = await snapshotRepo(ws.repo);
  });
  after(async () => {
    await ws.cleanup();
  });

  async function attack(name: string): Promise<{ id: string; view: Record<string, unknown> }> {
    const run = await runCli(
      ws.dataDir,
      ["run", "--repo", ws.repo, "--prompt", "attack", "--json", "--", name],
      { env: cleanEnv({ WARDEN_TESTING: "1", WARDEN_TEST_GUEST: HOSTILE_GUEST }) },
    );
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, UNSAFE);
    assert.doesNotMatch(run.stderr, UNSAFE);
    const view = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(view.state, "failed");
    assert.notEqual(view.changes, true, "no changes are offered");
    const id = String(view.id);
    const fetch = await runCli(ws.dataDir, ["fetch", id]);
    assert.equal(fetch.code, 1, "there is nothing to fetch");
    assert.match(fetch.stderr, /^warden: task \S+ has no changes to fetch/);
    assert.deepEqual(await snapshotRepo(ws.repo), before_, "the repository is untouched");
    return { id, view };
  }

  test("a path that climbs out of the results is refused, and written nowhere", async () => {
    const { id, view } = await attack("traversal");
    assert.match(String(view.error), /a path that is not a result file/);
    const results = join(ws.dataDir, "tasks", id, "results");
    for (const path of [
      join(results, "../../escape.txt"),
      join(results, "../escape.txt"),
      join(ws.repo, "escape.txt"),
    ]) {
      assert.equal(existsSync(path), false, path);
    }
    assert.equal(
      existsSync(join(results, "result.json")),
      false,
      "a refused archive leaves no file",
    );
  });

  test("a symbolic link in place of the bundle is refused", async () => {
    const { view } = await attack("symlink");
    assert.match(String(view.error), /results were refused/);
  });

  test("a bundle that carries the user's main branch is refused before git sees it", async () => {
    const { id, view } = await attack("extra-ref");
    assert.match(String(view.error), /refs\/heads\/main/);
    const bundle = join(ws.dataDir, "tasks", id, "results", "changes.bundle");
    assert.equal(existsSync(bundle), false, "the refused bundle is deleted");
    assert.equal(await git(ws.repo, "branch", "--list"), "* main");
  });

  test("a result that claims another start commit fails the task", async () => {
    const { view } = await attack("other-base");
    assert.match(String(view.error), /started from 1{40}, but warden sent/);
  });

  test("terminal escapes in stderr and in the result are cleaned everywhere they are shown", async () => {
    const { id, view } = await attack("escapes");
    assert.match(String(view.error), /boom/);
    const log = await readFile(join(ws.dataDir, "tasks", id, "results", "guest.log"), "utf8");
    assert.doesNotMatch(log, UNSAFE);
    assert.match(log, /cleared the screen/);
    const logs = await runCli(ws.dataDir, ["logs", id]);
    assert.doesNotMatch(logs.stdout, UNSAFE);
    const watch = await runCli(ws.dataDir, ["watch", id]);
    assert.equal(watch.code, 1);
    assert.doesNotMatch(watch.stdout, UNSAFE);
    assert.match(watch.stdout, /progress: .*red\?evil/);
    const show = await runCli(ws.dataDir, ["show", id]);
    assert.doesNotMatch(show.stdout, UNSAFE);
  });
});
