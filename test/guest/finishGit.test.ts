// Step 5 of the runner on a real repository: what the agent left is committed, the task branch
// ends at the head whichever branch the agent left checked out, and a workspace with nothing
// left uncommitted is finished without a commit.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { lstat, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { finishGit, type FinishReport } from "../../src/guest/finishGit.js";
import { gitEnvironment } from "../../src/guest/gitSteps.js";

const ENV = gitEnvironment(process.env.PATH ?? "/usr/bin:/bin", "/nonexistent");

function git(workspace: string, ...args: string[]): string {
  return execFileSync("git", ["-C", workspace, ...args], { env: ENV, encoding: "utf8" }).trim();
}

/** A workspace as the runner prepares it: one commit, the task branch checked out. */
async function workspace(): Promise<{ root: string; workspace: string; base: string }> {
  const root = await mkdtemp(join(tmpdir(), "warden-finish-"));
  const ws = join(root, "workspace");
  execFileSync("git", ["init", "--quiet", "--initial-branch=warden/task", ws], { env: ENV });
  git(ws, "config", "user.name", "t");
  git(ws, "config", "user.email", "t@t");
  await writeFile(join(ws, "a.txt"), "a\n");
  git(ws, "add", "a.txt");
  git(ws, "commit", "--quiet", "-m", "base");
  return { root, workspace: ws, base: git(ws, "rev-parse", "HEAD") };
}

async function finish(
  ws: { root: string; workspace: string; base: string },
  config: Buffer,
): Promise<FinishReport> {
  const report: FinishReport = { leftovers: false, warnings: [] };
  await finishGit(
    {
      git: { workspace: ws.workspace, env: ENV, signal: new AbortController().signal },
      base: ws.base,
      config,
      scratch: ws.root,
      progress: () => undefined,
    },
    report,
  );
  return report;
}

test("a workspace with nothing left uncommitted is finished at its base, with no commit", async (t) => {
  const ws = await workspace();
  t.after(() => rm(ws.root, { recursive: true, force: true }));
  const config = await readFile(join(ws.workspace, ".git", "config"));
  const report = await finish(ws, config);
  assert.equal(report.leftovers, false);
  assert.equal(report.head, ws.base);
  assert.equal(report.bundle, undefined);
  assert.equal(git(ws.workspace, "rev-parse", "refs/heads/warden/task"), ws.base);
});

test("an untracked file the agent left is committed onto the task branch and bundled", async (t) => {
  const ws = await workspace();
  t.after(() => rm(ws.root, { recursive: true, force: true }));
  const config = await readFile(join(ws.workspace, ".git", "config"));
  await writeFile(join(ws.workspace, "new.txt"), "new\n");
  const report = await finish(ws, config);
  assert.equal(report.leftovers, true);
  assert.notEqual(report.head, ws.base);
  assert.equal(git(ws.workspace, "rev-parse", "refs/heads/warden/task"), report.head);
  assert.equal(git(ws.workspace, "show", "--format=", "--name-only", "HEAD"), "new.txt");
  assert.ok(report.bundle !== undefined);
});

test("the task branch is pointed at the head when the agent left another branch checked out", async (t) => {
  const ws = await workspace();
  t.after(() => rm(ws.root, { recursive: true, force: true }));
  const config = await readFile(join(ws.workspace, ".git", "config"));
  git(ws.workspace, "switch", "--quiet", "-c", "elsewhere");
  await writeFile(join(ws.workspace, "b.txt"), "b\n");
  git(ws.workspace, "add", "b.txt");
  git(ws.workspace, "commit", "--quiet", "-m", "on another branch");
  const head = git(ws.workspace, "rev-parse", "HEAD");
  const report = await finish(ws, config);
  assert.equal(report.leftovers, false);
  assert.equal(report.head, head);
  assert.equal(git(ws.workspace, "rev-parse", "refs/heads/warden/task"), head);
});

test("a head the agent left in packed refs is read as git reads it", async (t) => {
  const ws = await workspace();
  t.after(() => rm(ws.root, { recursive: true, force: true }));
  const config = await readFile(join(ws.workspace, ".git", "config"));
  await writeFile(join(ws.workspace, "c.txt"), "c\n");
  git(ws.workspace, "add", "c.txt");
  git(ws.workspace, "commit", "--quiet", "-m", "agent");
  const head = git(ws.workspace, "rev-parse", "HEAD");
  git(ws.workspace, "pack-refs", "--all", "--prune");
  const report = await finish(ws, config);
  assert.equal(report.head, head);
  assert.ok(report.bundle !== undefined);
});

test("a task branch whose file names no commit fails the finish, and nothing is bundled", async (t) => {
  const ws = await workspace();
  t.after(() => rm(ws.root, { recursive: true, force: true }));
  const config = await readFile(join(ws.workspace, ".git", "config"));
  const tree = git(ws.workspace, "rev-parse", "HEAD^{tree}");
  await writeFile(join(ws.workspace, ".git", "refs", "heads", "warden", "task"), `${tree}\n`);
  const report: FinishReport = { leftovers: false, warnings: [] };
  await assert.rejects(
    finishGit(
      {
        git: { workspace: ws.workspace, env: ENV, signal: new AbortController().signal },
        base: ws.base,
        config,
        scratch: ws.root,
        progress: () => undefined,
      },
      report,
    ),
    /git failed/,
  );
  assert.equal(report.bundle, undefined);
});

test("a config the agent made a link is replaced by the runner's, and what it pointed at is untouched", async (t) => {
  const ws = await workspace();
  t.after(() => rm(ws.root, { recursive: true, force: true }));
  const configPath = join(ws.workspace, ".git", "config");
  const config = await readFile(configPath);
  const outside = join(ws.root, "outside.txt");
  await writeFile(outside, "the agent's target\n");
  await rm(configPath);
  await symlink(outside, configPath);
  await finish(ws, config);
  assert.ok((await lstat(configPath)).isFile(), "the config is a file again");
  assert.deepEqual(await readFile(configPath), config);
  assert.equal(await readFile(outside, "utf8"), "the agent's target\n");
  const left = (await readdir(join(ws.workspace, ".git"))).filter((name) =>
    name.startsWith("config."),
  );
  assert.deepEqual(left, [], "no restored copy is left beside the config");
});

test("the config is never missing while the runner restores it (the last checkpoint's git may read it)", async (t) => {
  const ws = await workspace();
  t.after(() => rm(ws.root, { recursive: true, force: true }));
  const configPath = join(ws.workspace, ".git", "config");
  const config = await readFile(configPath);
  // A thread looks for the config as fast as it can until told to stop, and counts its absences.
  const stop = new SharedArrayBuffer(4);
  const watcher = new Worker(
    `const { workerData, parentPort } = require("node:worker_threads");
     const { existsSync } = require("node:fs");
     const stop = new Int32Array(workerData.stop);
     let missing = 0, looks = 0;
     parentPort.postMessage("ready");
     while (Atomics.load(stop, 0) === 0) { looks++; if (!existsSync(workerData.path)) missing++; }
     parentPort.postMessage({ missing, looks });`,
    { eval: true, workerData: { path: configPath, stop } },
  );
  t.after(() => watcher.terminate());
  await new Promise((resolve) => watcher.once("message", resolve));
  for (let i = 0; i < 20; i++) await finish(ws, config);
  const counted = new Promise<{ missing: number; looks: number }>((resolve) => {
    watcher.once("message", resolve);
  });
  Atomics.store(new Int32Array(stop), 0, 1);
  const { missing, looks } = await counted;
  assert.ok(looks > 0);
  assert.equal(missing, 0, `the config was missing in ${missing} of ${looks} looks`);
});
