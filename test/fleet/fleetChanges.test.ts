// `fetch` and `diff` of a fleet's task: the changes bundle its worker uploaded is downloaded and
// verified on the client against the client's own repository, by the code that verifies a local
// task's, so a bundle a worker could send in place of the real one never reaches the repository.
// Each bundle is made by real git in a clone, as the verifyChanges and hostileObjects tests
// make theirs.
import { strict as assert } from "node:assert";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { FleetStore, putFile, submitTask, TASK_OBJECTS } from "../../src/fleet/index.js";
import { cleanEnv, runCli, workspace, type Workspace } from "../e2e/fixtures.js";
import { git, gitWithInput } from "../host/fixtures.js";
import { CLI_NOT_BUILT } from "../support/cliSuite.js";
import { withForgedPrerequisite } from "../support/forgedBundle.js";
import { NatsServer, natsServerMissing } from "../support/natsServer.js";

const skip = natsServerMissing() || CLI_NOT_BUILT;

describe("a fleet's task's changes on the client", { skip }, () => {
  let server: NatsServer;
  let fleet: FleetStore;
  let ws: Workspace;
  let work: string;
  let refsBefore: string;
  before(async () => {
    server = await NatsServer.start();
    fleet = await FleetStore.open({ servers: server.url, env: {} });
    ws = await workspace();
    work = join(ws.root, "work");
    await git(ws.root, "clone", "--quiet", ws.repo, work);
    await git(work, "switch", "--quiet", "-c", "warden/task");
    await writeFile(join(work, "new.txt"), "new\n");
    await git(work, "add", "new.txt");
    await git(work, "commit", "--quiet", "-m", "new");
    refsBefore = await git(ws.repo, "for-each-ref");
  });
  after(async () => {
    await fleet.close();
    await server.stop();
    await ws.cleanup();
  });

  const cli = (args: string[]) =>
    runCli(ws.dataDir, ["--store", server.url, ...args], { env: cleanEnv() });

  async function bundle(name: string, ...refs: string[]): Promise<string> {
    const path = join(ws.root, `${name}.bundle`);
    await git(work, "bundle", "create", "--quiet", path, ...refs);
    return path;
  }

  /** A task of the fleet that ended with `path` as its changes, claiming `head`. */
  async function endedWith(path: string, head: string): Promise<string> {
    const { summary } = await submitTask(fleet, {
      repo: ws.repo,
      prompt: "change",
      agent: "claude",
    });
    const held = await fleet.attach(summary.id);
    await putFile(
      fleet.objects,
      TASK_OBJECTS.result(summary.id, held.attempt, "changes.bundle"),
      path,
    );
    await held.finish({ state: "succeeded", details: { changes: true, head } });
    return summary.id;
  }

  /** Both verbs refuse the task's changes, and the user's repository gains no ref. */
  async function assertRefused(id: string, why: RegExp): Promise<void> {
    for (const verb of ["diff", "fetch"]) {
      const refused = await cli([verb, id, "--json"]);
      assert.equal(refused.code, 1, `${verb}: ${refused.stdout}${refused.stderr}`);
      const error = JSON.parse(refused.stdout) as { code: string; error: string };
      assert.equal(error.code, "FLEET_CHANGES_REFUSED", verb);
      assert.match(error.error, why, verb);
    }
    assert.equal(await git(ws.repo, "for-each-ref"), refsBefore, "the user's refs never change");
  }

  test("changes that descend from the base are diffed, and fetched as the task's branch", async () => {
    const head = await git(work, "rev-parse", "HEAD");
    const id = await endedWith(await bundle("good", "refs/heads/warden/task", `^${ws.head}`), head);
    const diff = await cli(["diff", id]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stdout, /^\+new$/m);
    const fetched = await cli(["fetch", id]);
    assert.equal(fetched.code, 0, fetched.stderr);
    assert.equal(await git(ws.repo, "rev-parse", `refs/heads/warden/${id}`), head);
    await git(ws.repo, "branch", "-D", `warden/${id}`);
  });

  test("a bundle that also carries another branch is refused", async () => {
    await git(work, "branch", "-f", "extra", "warden/task");
    const path = await bundle(
      "two-refs",
      "refs/heads/warden/task",
      "refs/heads/extra",
      `^${ws.head}`,
    );
    await assertRefused(await endedWith(path, await git(work, "rev-parse", "HEAD")), /extra/);
  });

  test("a bundle of an unrelated history that names the base as needed is refused", async () => {
    const orphan = join(ws.root, "orphan");
    await git(ws.root, "init", "--quiet", "--initial-branch=warden/task", orphan);
    await writeFile(join(orphan, "other.txt"), "other\n");
    await git(orphan, "add", "other.txt");
    await git(orphan, "commit", "--quiet", "-m", "unrelated");
    const whole = join(ws.root, "unrelated.bundle");
    await git(orphan, "bundle", "create", "--quiet", whole, "refs/heads/warden/task");
    const forged = join(ws.root, "forged.bundle");
    await withForgedPrerequisite(whole, ws.head, forged);
    const head = await git(orphan, "rev-parse", "HEAD");
    await assertRefused(await endedWith(forged, head), /does not descend from the base/);
  });

  test("a bundle whose tree writes into .git is refused by git's strict checks", async () => {
    const blob = await gitWithInput(
      work,
      "[core]\n\tfsmonitor = evil\n",
      "hash-object",
      "-w",
      "--stdin",
    );
    const inner = await gitWithInput(work, `100644 blob ${blob}\tconfig\n`, "mktree");
    const listed = await git(work, "ls-tree", ws.head);
    const tree = await gitWithInput(work, `${listed}\n040000 tree ${inner}\t.git\n`, "mktree");
    const commit = await gitWithInput(
      work,
      `tree ${tree}\nparent ${ws.head}\n` +
        "author A U Thor <a@example.com> 1700000000 +0000\n" +
        "committer A U Thor <a@example.com> 1700000000 +0000\n\nplant .git\n",
      "hash-object",
      "--literally",
      "-w",
      "-t",
      "commit",
      "--stdin",
    );
    await git(work, "branch", "-f", "planted", commit);
    const path = await bundle("planted", "refs/heads/planted", `^${ws.head}`);
    // The runner's branch name, as a worker would upload it.
    const renamed = join(ws.root, "planted-task.bundle");
    await writeFile(
      renamed,
      (await readFile(path))
        .toString("latin1")
        .replace("refs/heads/planted", "refs/heads/warden/task"),
      "latin1",
    );
    await assertRefused(await endedWith(renamed, commit), /strict object check|\.git/);
  });

  test("good changes that end at another head than the end record names are refused", async () => {
    const path = await bundle("good-again", "refs/heads/warden/task", `^${ws.head}`);
    await assertRefused(await endedWith(path, ws.head), /not at the head its end record names/);
  });
});
