// The first thing a user does: `warden run` an agent that commits, then `warden fetch`. The
// branch has the commit, and nothing else of the repository changed: not the checkout, not the
// index, not an untracked file, not another ref, and none of its hooks ran.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  git,
  NO_SYSTEM,
  runArgs,
  runCli,
  snapshotRepo,
  workspace,
  type Workspace,
} from "./fixtures.js";

describe("run, then fetch", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  let marker: string;

  before(async () => {
    ws = await workspace();
    marker = join(ws.root, "hook-ran");
    // Work in progress the task must not touch: a staged change, an unstaged one, an untracked file.
    await writeFile(join(ws.repo, "step-1.txt"), "staged change\n");
    await git(ws.repo, "add", "step-1.txt");
    await writeFile(join(ws.repo, "step-2.txt"), "unstaged change\n");
    await writeFile(join(ws.repo, "notes.txt"), "untracked\n");
    // Hooks and an fsmonitor that would say so if any git command of warden's ran them.
    const hook = `#!/bin/sh\necho "$0" >> ${marker}\n`;
    for (const name of ["reference-transaction", "post-checkout", "post-merge", "pre-auto-gc"]) {
      const path = join(ws.repo, ".git", "hooks", name);
      await writeFile(path, hook);
      await chmod(path, 0o755);
    }
    const monitor = join(ws.root, "fsmonitor.sh");
    await writeFile(monitor, hook);
    await chmod(monitor, 0o755);
    await git(ws.repo, "config", "core.fsmonitor", monitor);
  });

  after(async () => {
    await ws.cleanup();
  });

  test("the fetched branch has the agent's commit and the repository is otherwise untouched", async () => {
    const before = await snapshotRepo(ws.repo);
    const refsBefore = await git(ws.repo, "for-each-ref", "--format=%(refname) %(objectname)");
    const run = await runCli(
      ws.dataDir,
      runArgs(
        ws.repo,
        "say hi",
        ["--json"],
        ["sh", "-c", "echo hi > hi.txt && git add hi.txt && git commit -qm hi"],
      ),
    );
    assert.equal(run.code, 0, run.stderr);
    // The run left its workspace to a background deletion, which ends after the command's exit.
    const staging = join(ws.dataDir, "tmp");
    const removals = (): string[] => readdirSync(staging).filter((name) => name.startsWith("rm."));
    for (let waited = 0; removals().length > 0; waited += 50) {
      if (waited > 10_000) assert.fail(`the workspace was never deleted: ${removals().join()}`);
      await sleep(50);
    }
    const view = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(view.state, "succeeded");
    assert.equal(view.base, ws.head);
    assert.equal(view.changes, true);
    const id = String(view.id);
    assert.deepEqual(
      await snapshotRepo(ws.repo),
      before,
      "run alone changes nothing in the repository",
    );

    const diff = await runCli(ws.dataDir, ["diff", id.slice(0, 8)]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stdout, /^\+hi$/m);
    assert.deepEqual(await snapshotRepo(ws.repo), before, "diff changes nothing in the repository");

    const fetch = await runCli(ws.dataDir, ["fetch", id.slice(0, 8), "--json"]);
    assert.equal(fetch.code, 0, fetch.stderr);
    const fetched = JSON.parse(fetch.stdout) as { branch: string; head: string };
    assert.equal(fetched.branch, `warden/${id}`);
    assert.equal(fetched.head, view.head);

    assert.equal(await git(ws.repo, "show", `warden/${id}:hi.txt`), "hi");
    assert.equal(await git(ws.repo, "rev-parse", `warden/${id}^`), ws.head);
    assert.equal(await git(ws.repo, "log", "-1", "--format=%s", `warden/${id}`), "hi");

    const after = await snapshotRepo(ws.repo);
    assert.deepEqual(after.tree, before.tree, "the checkout and untracked files are untouched");
    const changed = Object.keys(after.gitFiles)
      .filter((name) => after.gitFiles[name] !== before.gitFiles[name])
      .sort();
    assert.deepEqual(changed, [`logs/refs/heads/warden/${id}`, `refs/heads/warden/${id}`]);
    for (const name of Object.keys(before.gitFiles)) assert.ok(name in after.gitFiles, name);
    const refsAfter = await git(ws.repo, "for-each-ref", "--format=%(refname) %(objectname)");
    assert.deepEqual(
      refsAfter.split("\n").filter((l) => !l.startsWith(`refs/heads/warden/${id} `)),
      refsBefore.split("\n"),
    );
    assert.equal(existsSync(marker), false, "no hook or fsmonitor of the repository ran");

    const again = await runCli(ws.dataDir, ["fetch", id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^warden: the branch warden\/\S+ already exists\nhint: .*--force/);
    const forced = await runCli(ws.dataDir, ["fetch", id, "--force"]);
    assert.equal(forced.code, 0, forced.stderr);
    const named = await runCli(ws.dataDir, ["fetch", id, "--branch", "review/hi"]);
    assert.equal(named.code, 0, named.stderr);
    assert.equal(await git(ws.repo, "rev-parse", "review/hi"), view.head);
    assert.equal(existsSync(marker), false, "no hook ran on the later fetches either");
    // The control: the same hooks do run for an ordinary git command in this repository.
    await git(ws.repo, "branch", "control");
    assert.equal(
      existsSync(marker),
      true,
      "the hooks are live, so their silence above means something",
    );
  });
});
