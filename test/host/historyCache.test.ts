// The per-repository history cache: tasks borrow its objects instead of copying the history,
// share it safely when they run at once, and never trust a cache a crash or someone else changed.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { appendFile, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createTask, executeTask, type CreateTaskInput } from "../../src/host/index.js";
import {
  cacheLayout,
  HISTORY_DIR,
  leaseHistory,
  type HistoryLease,
  trimHistoryCaches,
} from "../../src/host/historyCache/index.js";
import { tryFlock } from "../../src/store/index.js";
import { TEST_LIMITS } from "../support/testBounds.js";
import { git, hostFixture, NO_SANDBOX, type HostFixture } from "./fixtures.js";

const HOUR = 60 * 60 * 1000;

/** The generations (bare repositories) a cache holds. */
function generations(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith("gen-"));
}

/** How many objects a pack's index lists. */
function objectCount(idx: string): number {
  return execFileSync("git", ["show-index"], { input: readFileSync(idx) })
    .toString()
    .trim()
    .split("\n").length;
}

async function hasObject(repository: string, oid: string): Promise<boolean> {
  return git(repository, "cat-file", "-e", `${oid}^{commit}`).then(
    () => true,
    () => false,
  );
}

describe("the history cache", () => {
  let fx: HostFixture;
  let source: { gitDir: string; objectFormat: "sha1" };
  let secret: string;
  before(async () => {
    fx = await hostFixture();
    source = { gitDir: join(fx.repo, ".git"), objectFormat: "sha1" };
    // A branch the user never gave warden: none of its objects may reach a cache.
    await git(fx.repo, "switch", "--quiet", "-c", "private");
    await writeFile(join(fx.repo, "secret.txt"), "not for the sandbox\n");
    await git(fx.repo, "add", "secret.txt");
    await git(fx.repo, "commit", "--quiet", "-m", "private work");
    secret = await git(fx.repo, "rev-parse", "HEAD");
    await git(fx.repo, "switch", "--quiet", "main");
  });
  after(async () => {
    await fx.cleanup();
  });

  test("a lease holds the base and nothing of the user's other refs", async () => {
    const lease = await leaseHistory(fx.tasks.dataDir, source, fx.head);
    try {
      assert.ok(await hasObject(lease.repository, fx.head));
      assert.equal(await hasObject(lease.repository, secret), false);
    } finally {
      lease.release();
    }
  });

  test("two leases at once on one repository share one generation", async () => {
    const older = await git(fx.repo, "rev-parse", "HEAD~1");
    const [a, b] = await Promise.all([
      leaseHistory(fx.tasks.dataDir, source, fx.head),
      leaseHistory(fx.tasks.dataDir, source, older),
    ]);
    try {
      assert.equal(a.repository, b.repository);
      assert.ok(await hasObject(a.repository, fx.head));
      assert.ok(await hasObject(a.repository, older));
      assert.equal(generations(cacheLayout(fx.tasks.dataDir, source.gitDir).dir).length, 1);
    } finally {
      a.release();
      b.release();
    }
  });

  test("a lease of a base the cache holds does not wait for an update under way", async () => {
    (await leaseHistory(fx.tasks.dataDir, source, fx.head)).release();
    const layout = cacheLayout(fx.tasks.dataDir, source.gitDir);
    // Another process's update, as far as this one can tell: the update lock held exclusive.
    const fd = openSync(layout.updateLock, "r+");
    assert.ok(tryFlock(fd, "exclusive"));
    let lease: Promise<HistoryLease> | undefined;
    try {
      lease = leaseHistory(fx.tasks.dataDir, source, fx.head);
      const won = await Promise.race([lease.then(() => "leased"), sleep(2_000, "waited")]);
      assert.equal(won, "leased", "the lease of a held base took no turn at the update lock");
    } finally {
      closeSync(fd);
      (await lease)?.release();
    }
  });

  test("a cache whose files changed after the host recorded them is not used: a new generation is filled", async () => {
    const first = await leaseHistory(fx.tasks.dataDir, source, fx.head);
    first.release();
    const ref = join(first.repository, "refs", "tags", fx.head);
    // Someone points the base's tag at a commit of theirs; the host must not believe it.
    await writeFile(ref, `${secret}\n`);
    const second = await leaseHistory(fx.tasks.dataDir, source, fx.head);
    try {
      assert.notEqual(second.repository, first.repository);
      assert.equal(await git(second.repository, "rev-parse", `refs/tags/${fx.head}`), fx.head);
      assert.equal(await hasObject(second.repository, secret), false);
      assert.equal(existsSync(first.repository), false, "the tampered generation is removed");
    } finally {
      second.release();
    }
  });

  test("an object file appended to is noticed, even with its size the same elsewhere", async () => {
    const first = await leaseHistory(fx.tasks.dataDir, source, fx.head);
    first.release();
    const packs = join(first.repository, "objects", "pack");
    const pack = readdirSync(packs).find((name) => name.endsWith(".pack"));
    assert.ok(pack !== undefined, "a fetch keeps its objects as a pack");
    await appendFile(join(packs, pack), "");
    // An empty append changes nothing but the times; a rewrite with the same bytes does too.
    await writeFile(join(packs, pack), await readFile(join(packs, pack)));
    const second = await leaseHistory(fx.tasks.dataDir, source, fx.head);
    second.release();
    assert.notEqual(second.repository, first.repository);
  });

  test("a cache left half-written (objects and a ref, no record) is rebuilt", async () => {
    const first = await leaseHistory(fx.tasks.dataDir, source, fx.head);
    first.release();
    // What a crash between git's writes and state.json leaves: a temporary pack and a new ref.
    await writeFile(join(first.repository, "objects", "pack", "tmp_pack_crash"), "PACK\0\0");
    await git(first.repository, "update-ref", "refs/tags/half", fx.head);
    const second = await leaseHistory(fx.tasks.dataDir, source, fx.head);
    second.release();
    assert.notEqual(second.repository, first.repository);
    assert.ok(await hasObject(second.repository, fx.head));
  });

  test("an updater killed with SIGKILL in the middle leaves a cache the next lease rebuilds or uses", async () => {
    const dataDir = join(fx.root, "killed");
    const script = [
      `import { leaseHistory } from ${JSON.stringify(new URL("../../src/host/historyCache/index.ts", import.meta.url).href)};`,
      `await leaseHistory(${JSON.stringify(dataDir)}, ${JSON.stringify(source)}, ${JSON.stringify(fx.head)});`,
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        stdio: "ignore",
      },
    );
    // Kill it as soon as it has started a generation: in the middle of git's work, or just after.
    const cacheDir = cacheLayout(dataDir, source.gitDir).dir;
    const until = Date.now() + 20_000;
    while (!(existsSync(cacheDir) && generations(cacheDir).length > 0) && Date.now() < until) {
      await sleep(5);
    }
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("close", resolve));
    const lease = await leaseHistory(dataDir, source, fx.head);
    try {
      assert.ok(await hasObject(lease.repository, fx.head));
    } finally {
      lease.release();
    }
  });

  test("a later base adds a pack of only what the cache lacks", async () => {
    const dataDir = join(fx.root, "incremental");
    const older = await git(fx.repo, "rev-parse", "HEAD~1");
    (await leaseHistory(dataDir, source, older)).release();
    const lease = await leaseHistory(dataDir, source, fx.head);
    lease.release();
    const packs = join(lease.repository, "objects", "pack");
    const counts = readdirSync(packs)
      .filter((name) => name.endsWith(".idx"))
      .map((name) => objectCount(join(packs, name)))
      .sort((a, b) => a - b);
    const objects = async (...range: string[]): Promise<number> =>
      (await git(fx.repo, "rev-list", "--objects", ...range)).split("\n").length;
    const expected = [await objects(older), await objects(`${older}..${fx.head}`)].sort(
      (a, b) => a - b,
    );
    assert.deepEqual(counts, expected);
  });

  test("a base after the user rewrote and pruned a cached one is packed whole, never with an object missing", async () => {
    const dataDir = join(fx.root, "rewritten");
    const clone = join(fx.root, "rewritten-repo");
    await git(fx.root, "clone", "--quiet", "--no-local", fx.repo, clone);
    const moved = { gitDir: join(clone, ".git"), objectFormat: "sha1" as const };
    const lost = await git(clone, "rev-parse", "HEAD");
    (await leaseHistory(dataDir, moved, lost)).release();
    await git(clone, "reset", "--quiet", "--hard", "HEAD~1");
    await writeFile(join(clone, "new.txt"), "after the rewrite\n");
    await git(clone, "add", "new.txt");
    await git(clone, "commit", "--quiet", "-m", "rewritten");
    await git(clone, "remote", "remove", "origin");
    await git(clone, "reflog", "expire", "--expire=now", "--all");
    await git(clone, "gc", "--quiet", "--prune=now");
    assert.equal(
      await hasObject(clone, lost),
      false,
      "the cached base is gone from the repository",
    );
    const rewritten = await git(clone, "rev-parse", "HEAD");
    const lease = await leaseHistory(dataDir, moved, rewritten);
    try {
      assert.equal(await git(lease.repository, "rev-list", "--count", rewritten), "3");
      await git(lease.repository, "fsck", "--connectivity-only", "--no-dangling");
    } finally {
      lease.release();
    }
  });

  test("the cache's packs are readable by the sandbox's uid even under a private umask", async () => {
    const dataDir = join(fx.root, "umask");
    const saved = process.umask(0o077);
    let lease;
    try {
      lease = await leaseHistory(dataDir, source, fx.head);
    } finally {
      process.umask(saved);
    }
    lease.release();
    const packs = join(lease.repository, "objects", "pack");
    const files = readdirSync(packs);
    assert.ok(files.length >= 2, "a pack and its index");
    for (const name of files) {
      assert.equal(statSync(join(packs, name)).mode & 0o444, 0o444, `${name} is readable by all`);
    }
  });

  test("gc keeps a cache a task holds and removes it once nobody holds it", async () => {
    const dataDir = join(fx.root, "trim");
    const lease = await leaseHistory(dataDir, source, fx.head);
    const held = await trimHistoryCaches(dataDir, { olderThan: 0, now: Date.now() + HOUR });
    assert.deepEqual(held.removed, []);
    assert.equal(held.inUse.length, 1);
    assert.ok(await hasObject(lease.repository, fx.head));
    lease.release();
    const recent = await trimHistoryCaches(dataDir, { olderThan: 2 * HOUR, now: Date.now() });
    assert.deepEqual(recent.removed, [], "a cache used within --older-than stays");
    const old = await trimHistoryCaches(dataDir, { olderThan: 0, now: Date.now() + HOUR });
    assert.equal(old.removed.length, 1);
    assert.deepEqual(readdirSync(join(dataDir, HISTORY_DIR)), []);
    const again = await leaseHistory(dataDir, source, fx.head);
    again.release();
    assert.ok(await hasObject(again.repository, fx.head));
  });
});

describe("tasks on the history cache", { skip: NO_SANDBOX }, () => {
  let fx: HostFixture;
  before(async () => {
    fx = await hostFixture();
  });
  after(async () => {
    await fx.cleanup();
  });

  // The agent fails unless the workspace borrows the history: alternates, no pack, no loose
  // objects of the history, and yet the whole history is there to read.
  const borrowing = [
    "sh",
    "-c",
    [
      "test -s .git/objects/info/alternates",
      'test -z "$(find .git/objects -type f ! -path "*/info/*")"',
      "test $(git rev-list --count HEAD) -eq 3",
      "echo $$ > mine.txt && git add mine.txt && git commit -qm mine",
    ].join(" && "),
  ];

  function input(command: string[], over: Partial<CreateTaskInput> = {}): CreateTaskInput {
    return {
      repo: fx.repo,
      prompt: "work\n",
      agent: "command",
      command,
      limits: TEST_LIMITS,
      ...over,
    };
  }

  test("two tasks at once on one repository both succeed, borrowing one cache's objects", async () => {
    const made = await Promise.all([
      createTask(fx.tasks, input(borrowing)),
      createTask(fx.tasks, input(borrowing)),
    ]);
    const outcomes = await Promise.all(
      made.map(({ summary }) => executeTask(fx.tasks, summary.id, { env: {} })),
    );
    for (const outcome of outcomes) {
      if (outcome.kind !== "finished") assert.fail(`a task was ${outcome.kind}`);
      assert.equal(outcome.terminal.state, "succeeded", JSON.stringify(outcome.terminal));
      assert.equal(outcome.terminal.details?.changes, true);
    }
    const cacheDir = cacheLayout(fx.tasks.dataDir, join(fx.repo, ".git")).dir;
    assert.equal(generations(cacheDir).length, 1);
  });

  test("a task on a cache someone tampered with still starts from the real base", async () => {
    const cacheDir = cacheLayout(fx.tasks.dataDir, join(fx.repo, ".git")).dir;
    const [generation] = generations(cacheDir);
    assert.ok(generation !== undefined);
    const head = await git(fx.repo, "rev-parse", "HEAD");
    await rm(join(cacheDir, generation, "refs", "tags", head));
    const { summary } = await createTask(fx.tasks, input(borrowing));
    const outcome = await executeTask(fx.tasks, summary.id, { env: {} });
    assert.equal(outcome.kind === "finished" && outcome.terminal.state, "succeeded");
    assert.notDeepEqual(generations(cacheDir), [generation]);
  });
});
