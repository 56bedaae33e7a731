// Step 5 of the runner on a real repository: what the agent left is committed, the task branch
// ends at the head whichever branch the agent left checked out, and a workspace with nothing
// left uncommitted is finished without a commit.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
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
