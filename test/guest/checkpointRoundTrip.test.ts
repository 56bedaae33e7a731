// The workspace part of a checkpoint, with real git: what the agent committed and what it left
// uncommitted (changed, new and deleted files) comes back in a fresh clone of the base as it was,
// the branch at the agent's head and the rest still uncommitted; the agent's repository gains no
// ref and its index is untouched; and the throttle keeps checkpoints to their share of the time.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { checkpointWorkspace, finishedCheckpoint } from "../../src/guest/checkpointGit.js";
import { nextCheckpointAt } from "../../src/guest/checkpointer.js";
import { finishGit, type FinishReport } from "../../src/guest/finishGit.js";
import { gitEnvironment } from "../../src/guest/gitSteps.js";
import { restoreCheckpoint } from "../../src/guest/restoreCheckpoint.js";
import {
  CHECKPOINT_SHARE_FILES,
  readBundleHeaderFile,
  checkBundle,
} from "../../src/protocol/index.js";
import { git, makeRepo } from "../support/share.js";

let root = "";
before(async () => {
  root = await mkdtemp(join(tmpdir(), "warden-checkpoint-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

/**
 * A clone of the agent's repository at `base` on warden's branch, as the runner makes one for a
 * resume, with the checkpoint in `share` restored into it. Returns its path.
 */
async function restoredInFreshClone(
  fresh: string,
  agent: string,
  base: string,
  share: string,
  env: Readonly<Record<string, string>>,
  resume: Parameters<typeof restoreCheckpoint>[1],
): Promise<string> {
  await git(agent, "clone", "--quiet", "--branch", "main", agent, fresh);
  await git(fresh, "switch", "--quiet", "--detach", base);
  await git(fresh, "switch", "--quiet", "-c", "warden/task");
  await restoreCheckpoint(
    share,
    resume,
    { workspace: fresh, env, signal: new AbortController().signal },
    () => undefined,
  );
  return fresh;
}

describe("a checkpoint of the workspace", () => {
  test("restores committed and uncommitted work into a fresh clone of the base", async () => {
    const { repo: agent, head: base } = await makeRepo(join(root, "agent"), {
      files: {
        "README.md": "# a project\n",
        "gone.txt": "to be deleted\n",
        ".gitignore": "*.log\n",
      },
    });
    await git(agent, "switch", "--quiet", "-c", "warden/task");
    await writeFile(join(agent, "committed.txt"), "committed\n");
    await git(agent, "add", "committed.txt");
    await git(agent, "commit", "--quiet", "-m", "the agent's commit");
    const head = await git(agent, "rev-parse", "HEAD");
    await writeFile(join(agent, "README.md"), "# changed, not committed\n");
    await writeFile(join(agent, "new.txt"), "new, untracked\n");
    await writeFile(join(agent, "ignored.log"), "ignored\n");
    await unlink(join(agent, "gone.txt"));
    const statusBefore = await git(agent, "status", "--porcelain");
    const refsBefore = await git(agent, "for-each-ref");

    const env = gitEnvironment(process.env.PATH ?? "/usr/bin:/bin", root);
    const share = join(root, "share");
    await git(root, "init", "--quiet", share);
    const bundle = join(share, CHECKPOINT_SHARE_FILES.bundle);
    const taken = await checkpointWorkspace(
      {
        workspace: agent,
        repo: join(root, "checkpoints.git"),
        base,
        identity: { name: "warden", email: "warden@localhost" },
      },
      { env, signal: new AbortController().signal },
      bundle,
    );
    assert.equal(taken.head, head);
    assert.ok(
      taken.tip !== undefined && taken.tip !== head,
      "the uncommitted work is its own commit",
    );
    assert.equal(checkBundle(await readBundleHeaderFile(bundle), base), taken.tip);
    assert.equal(
      await git(agent, "status", "--porcelain"),
      statusBefore,
      "the agent's index is untouched",
    );
    assert.equal(
      await git(agent, "for-each-ref"),
      refsBefore,
      "the agent's repository gains no ref",
    );

    const fresh = await restoredInFreshClone(join(root, "fresh"), agent, base, share, env, {
      reason: "interrupted",
      head: taken.head,
      tip: taken.tip,
    });
    assert.equal(await git(fresh, "rev-parse", "HEAD"), head, "the branch is at the agent's head");
    assert.equal(await readFile(join(fresh, "README.md"), "utf8"), "# changed, not committed\n");
    assert.equal(await readFile(join(fresh, "new.txt"), "utf8"), "new, untracked\n");
    assert.equal(existsSync(join(fresh, "gone.txt")), false);
    assert.equal(existsSync(join(fresh, "ignored.log")), false, "ignored files are not carried");
    assert.equal(
      await git(fresh, "status", "--porcelain"),
      statusBefore.replace(/\n?\?\? ignored\.log/, ""),
      "the same work is uncommitted",
    );
    assert.equal(
      await git(fresh, "for-each-ref", "refs/warden"),
      "",
      "no ref of the restore is left",
    );
  });

  test("of a workspace that changed nothing is no bundle", async () => {
    const { repo, head } = await makeRepo(join(root, "still"));
    const taken = await checkpointWorkspace(
      {
        workspace: repo,
        repo: join(root, "still-checkpoints.git"),
        base: head,
        identity: { name: "warden", email: "warden@localhost" },
      },
      {
        env: gitEnvironment(process.env.PATH ?? "/usr/bin:/bin", root),
        signal: new AbortController().signal,
      },
      join(root, "still.bundle"),
    );
    assert.deepEqual(taken, { head });
  });
});

describe("the last checkpoint read off finishing the workspace's git", () => {
  test("restores the agent's commit at its head and its leftovers as uncommitted work", async () => {
    const dir = join(root, "finished");
    const { repo: agent, head: base } = await makeRepo(join(dir, "agent"), {
      files: { "README.md": "# a project\n", "gone.txt": "to be deleted\n" },
    });
    // As the runner prepares it: the task's identity in the repository's own config.
    await git(agent, "config", "user.name", "warden");
    await git(agent, "config", "user.email", "warden@localhost");
    await git(agent, "switch", "--quiet", "-c", "warden/task");
    await writeFile(join(agent, "committed.txt"), "committed\n");
    await git(agent, "add", "committed.txt");
    await git(agent, "commit", "--quiet", "-m", "the agent's commit");
    const agentHead = await git(agent, "rev-parse", "HEAD");
    await writeFile(join(agent, "README.md"), "# changed, not committed\n");
    await writeFile(join(agent, "new.txt"), "new, untracked\n");
    await unlink(join(agent, "gone.txt"));
    const statusBefore = await git(agent, "status", "--porcelain");

    const env = gitEnvironment(process.env.PATH ?? "/usr/bin:/bin", dir);
    const scratch = join(dir, "scratch");
    await git(dir, "init", "--quiet", scratch);
    const report: FinishReport = { leftovers: false, warnings: [] };
    await finishGit(
      {
        git: { workspace: agent, env, signal: new AbortController().signal },
        base,
        config: await readFile(join(agent, ".git", "config")),
        scratch,
        progress: () => undefined,
        bundleName: CHECKPOINT_SHARE_FILES.bundle,
      },
      report,
    );
    assert.deepEqual(report.warnings, []);
    assert.equal(report.leftovers, true);
    const taken = finishedCheckpoint(report, base);
    assert.deepEqual(taken, { head: agentHead, tip: report.head, bundle: report.bundle });
    assert.equal(checkBundle(await readBundleHeaderFile(taken.bundle ?? ""), base), taken.tip);

    const fresh = await restoredInFreshClone(join(dir, "fresh"), agent, base, scratch, env, {
      reason: "suspended",
      head: taken.head,
      tip: taken.tip,
    });
    assert.equal(
      await git(fresh, "rev-parse", "HEAD"),
      agentHead,
      "the branch is at the agent's head",
    );
    assert.equal(await readFile(join(fresh, "README.md"), "utf8"), "# changed, not committed\n");
    assert.equal(await readFile(join(fresh, "new.txt"), "utf8"), "new, untracked\n");
    assert.equal(existsSync(join(fresh, "gone.txt")), false);
    assert.equal(
      await git(fresh, "status", "--porcelain"),
      statusBefore,
      "the same work is uncommitted",
    );
  });

  test("is the base alone when nothing changed, and the head's bundle when all was committed", () => {
    const base = "a".repeat(40);
    const head = "b".repeat(40);
    assert.deepEqual(finishedCheckpoint({ leftovers: false, warnings: [], head: base }, base), {
      head: base,
    });
    assert.deepEqual(
      finishedCheckpoint({ leftovers: false, warnings: [], head, bundle: "/s/c.bundle" }, base),
      { head, bundle: "/s/c.bundle" },
    );
  });

  test("is none when finishing did not vouch for the whole workspace", () => {
    const base = "a".repeat(40);
    const head = "b".repeat(40);
    const none: [string, FinishReport][] = [
      ["finishing failed before it read a head", { leftovers: false, warnings: [] }],
      ["the changes were refused (no bundle)", { leftovers: false, warnings: [], head }],
      [
        "the leftovers could not be committed",
        { leftovers: false, leftoversFailed: true, warnings: [], head, bundle: "/s/c.bundle" },
      ],
      [
        "the agent's own head under the leftovers is unknown",
        { leftovers: true, warnings: [], head, bundle: "/s/c.bundle" },
      ],
      [
        "the leftovers' bundle was refused",
        { leftovers: true, agentHead: base, warnings: [], head },
      ],
    ];
    for (const [why, report] of none)
      assert.equal(finishedCheckpoint(report, base), undefined, why);
  });
});

describe("the checkpoints' throttle", () => {
  test("lets the first one start at once and keeps them to their share of the time", () => {
    const at = (spentMs: number, lastEndedAt?: number) =>
      nextCheckpointAt({ startedAt: 1000, spentMs, lastEndedAt, share: 0.1, minIntervalMs: 1000 });
    assert.equal(at(0), 1000);
    assert.equal(at(300, 1300), 4000, "300 ms spent: not before 3 s of the agent's time");
    assert.equal(at(10, 1010), 2010, "a cheap one still waits the minimum interval");
  });
});
