// Bundles whose pack is well formed but holds objects git's fsck refuses: a malformed commit, a
// .gitmodules that makes git run a command, a .gitmodules that is a symbolic link, tree entries
// that a checkout would write into .git. git 2.39 fetches every one of them from a bundle without
// a word, whatever transfer.fsckObjects says. Each is made here by real git (objects written with
// `hash-object --literally` and `mktree`, bundled as the runner bundles a task), and each must be
// refused when the task ends, and again by fetch and diff, with the user's repository unchanged.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { TEST_LIMITS } from "../support/testBounds.js";
import { createTask, diffTask, executeTask, fetchTask, taskLayout } from "../../src/host/index.js";
import { HOST_LIMITS } from "../../src/host/limits.js";
import { verifyChanges, type BundleFacts } from "../../src/host/verifyChanges.js";
import {
  git,
  gitWithInput,
  hostFixture,
  makeRepo,
  NO_SANDBOX,
  TEST_GIT_ENV,
  type HostFixture,
} from "./fixtures.js";

/** Writes `text` as a commit object into the repository at `dir`, with no check at all. */
function writeRawCommit(dir: string, text: string): Promise<string> {
  return gitWithInput(dir, text, "hash-object", "--literally", "-w", "-t", "commit", "--stdin");
}

/** Writes objects into a clone of the user's repository, as an agent in the sandbox could. */
class ObjectWriter {
  constructor(
    readonly work: string,
    readonly base: string,
  ) {}

  blob(text: string): Promise<string> {
    return gitWithInput(this.work, text, "hash-object", "-w", "--stdin");
  }

  /** A tree of `entries` ([mode, type, oid, name]), written without any check of the names. */
  tree(entries: [string, string, string, string][]): Promise<string> {
    const text = entries.map(([mode, type, oid, name]) => `${mode} ${type} ${oid}\t${name}\n`);
    return gitWithInput(this.work, text.join(""), "mktree");
  }

  /** The base's tree with `entries` added. */
  async baseTreeWith(entries: [string, string, string, string][]): Promise<string> {
    const listed = await git(this.work, "ls-tree", this.base);
    const own = listed.split("\n").map((line) => {
      const [meta = "", name = ""] = line.split("\t");
      const [mode = "", type = "", oid = ""] = meta.split(" ");
      return [mode, type, oid, name] as [string, string, string, string];
    });
    return this.tree([...own, ...entries]);
  }

  /** A commit of exactly `text` (a raw commit object), written with no check at all. */
  rawCommit(text: string): Promise<string> {
    return writeRawCommit(this.work, text);
  }

  /** A well-formed commit of `tree` on top of the base. */
  commit(tree: string): Promise<string> {
    return this.rawCommit(
      `tree ${tree}\nparent ${this.base}\n` +
        "author A U Thor <author@example.com> 1700000000 +0000\n" +
        "committer A U Thor <author@example.com> 1700000000 +0000\n\nthe task\n",
    );
  }

  /** `head` bundled as the runner bundles a task: warden/task, with the base as prerequisite. */
  async bundle(path: string, head: string): Promise<string> {
    await git(this.work, "branch", "-f", "warden/task", head);
    await git(
      this.work,
      "bundle",
      "create",
      "--quiet",
      path,
      "refs/heads/warden/task",
      `^${this.base}`,
    );
    return path;
  }
}

interface Hostile {
  /** What the bundle holds, as the test names say it. */
  what: string;
  /** git's fsck message id the refusal must name. */
  id: string;
  /** Writes the objects; resolves with the head and the object git must name. */
  make(w: ObjectWriter): Promise<{ head: string; bad: string }>;
}

/** A file that any of the commands in these objects would create, if one ever ran. */
let marker = "";

const HOSTILE: Hostile[] = [
  {
    what: "a commit whose author has a time zone git cannot read",
    id: "badTimezone",
    async make(w) {
      const tree = await git(w.work, "rev-parse", `${w.base}^{tree}`);
      const head = await w.rawCommit(
        `tree ${tree}\nparent ${w.base}\n` +
          "author A U Thor <author@example.com> 1700000000 +99999\n" +
          "committer A U Thor <author@example.com> 1700000000 +0000\n\nbad time zone\n",
      );
      return { head, bad: head };
    },
  },
  {
    what: "a commit with no author",
    id: "missingAuthor",
    async make(w) {
      const tree = await git(w.work, "rev-parse", `${w.base}^{tree}`);
      const head = await w.rawCommit(
        `tree ${tree}\nparent ${w.base}\n` +
          "committer A U Thor <author@example.com> 1700000000 +0000\n\nno author\n",
      );
      return { head, bad: head };
    },
  },
  {
    what: "a .gitmodules whose url is a command-line option",
    id: "gitmodulesUrl",
    async make(w) {
      const modules = await w.blob(
        `[submodule "x"]\n\tpath = x\n\turl = --upload-pack=touch ${marker}\n`,
      );
      const tree = await w.baseTreeWith([["100644", "blob", modules, ".gitmodules"]]);
      return { head: await w.commit(tree), bad: modules };
    },
  },
  {
    what: "a .gitmodules whose update runs a command",
    id: "gitmodulesUpdate",
    async make(w) {
      const modules = await w.blob(
        `[submodule "x"]\n\tpath = x\n\turl = https://example.com/x.git\n\tupdate = !touch ${marker}\n`,
      );
      const tree = await w.baseTreeWith([["100644", "blob", modules, ".gitmodules"]]);
      return { head: await w.commit(tree), bad: modules };
    },
  },
  {
    what: "a .gitmodules that is a symbolic link",
    id: "gitmodulesSymlink",
    async make(w) {
      const target = await w.blob("README.md");
      const tree = await w.baseTreeWith([["120000", "blob", target, ".gitmodules"]]);
      return { head: await w.commit(tree), bad: tree };
    },
  },
  ...[".git", ".GIT", "GIT~1", ".git."].map((name): Hostile => ({
    what: `a tree entry ${name}/config`,
    id: "hasDotgit",
    async make(w) {
      const hook = await w.blob(`[core]\n\tfsmonitor = touch ${marker}\n`);
      const inner = await w.tree([["100644", "blob", hook, "config"]]);
      const tree = await w.baseTreeWith([["040000", "tree", inner, name]]);
      return { head: await w.commit(tree), bad: tree };
    },
  })),
];

/** The error of a refused bundle; fails the test for any other outcome. */
function refusal(facts: BundleFacts): string {
  if (facts.kind !== "refused") assert.fail(`the bundle was not refused: ${JSON.stringify(facts)}`);
  return facts.error;
}

/** What must not change in the user's repository: its refs and its object store. */
async function repoState(repo: string): Promise<{ refs: string; objects: string }> {
  return {
    refs: await git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
    objects: await git(repo, "count-objects", "-v"),
  };
}

async function hasObject(repo: string, oid: string): Promise<boolean> {
  return git(repo, "cat-file", "-e", oid).then(
    () => true,
    () => false,
  );
}

describe("objects git's fsck refuses", () => {
  let fx: HostFixture;
  let writer: ObjectWriter;
  let count = 0;

  before(async () => {
    fx = await hostFixture();
    marker = join(fx.root, "a-command-ran");
    const work = join(fx.root, "work");
    await git(fx.root, "clone", "--quiet", fx.repo, work);
    writer = new ObjectWriter(work, fx.head);
  });
  after(async () => {
    await fx.cleanup();
  });

  async function hostileBundle(
    hostile: Hostile,
  ): Promise<{ path: string; head: string; bad: string }> {
    const { head, bad } = await hostile.make(writer);
    count += 1;
    const path = await writer.bundle(join(fx.root, `hostile-${count}.bundle`), head);
    return { path, head, bad };
  }

  function verify(path: string) {
    return verifyChanges({
      bundle: path,
      base: fx.head,
      gitDir: join(fx.repo, ".git"),
      objectFormat: "sha1",
      scratchParent: fx.root,
    });
  }

  /** A finished task whose results hold `bundle` as verified changes: a results dir from before the check. */
  async function finishedTask(bundle: string, head: string): Promise<string> {
    const { summary } = await createTask(fx.tasks, {
      repo: fx.repo,
      prompt: "old results\n",
      agent: "command",
      command: ["true"],
    });
    const attachment = await fx.tasks.attach(summary.id);
    await attachment.finish({
      state: "succeeded",
      summary: "changes",
      details: { base: fx.head, head, changes: true, commits: 1 },
    });
    const layout = taskLayout(fx.tasks.dataDir, summary.id);
    await mkdir(layout.results, { recursive: true });
    await copyFile(bundle, layout.result("changes.bundle"));
    return summary.id;
  }

  for (const hostile of HOSTILE) {
    test(`a bundle with ${hostile.what} is refused when the task ends, naming ${hostile.id}`, async () => {
      const { path, bad } = await hostileBundle(hostile);
      const before_ = await repoState(fx.repo);
      const error = refusal(await verify(path));
      assert.match(error, new RegExp(`object ${bad}: ${hostile.id}\\b`));
      assert.match(error, /fail git's strict object check/);
      // eslint-disable-next-line no-control-regex -- matching control characters is the point.
      assert.doesNotMatch(error, /[\x00-\x1f\x7f]/);
      assert.equal(existsSync(path), false, "a refused bundle is deleted");
      assert.deepEqual(await repoState(fx.repo), before_);
      assert.equal(await hasObject(fx.repo, bad), false);
    });

    test(`fetch and diff refuse a bundle with ${hostile.what}, and the repository gains nothing`, async () => {
      const { path, head, bad } = await hostileBundle(hostile);
      const id = await finishedTask(path, head);
      const before_ = await repoState(fx.repo);
      for (const attempt of [() => fetchTask(fx.tasks, id), () => diffTask(fx.tasks, id)]) {
        await assert.rejects(attempt(), (error: Error & { code?: string }) => {
          assert.equal(error.code, "BAD_OBJECTS");
          assert.match(error.message, new RegExp(`object ${bad}: ${hostile.id}\\b`));
          return true;
        });
      }
      assert.deepEqual(await repoState(fx.repo), before_, "no ref and no object was added");
      assert.equal(await hasObject(fx.repo, bad), false);
      assert.equal(await hasObject(fx.repo, head), false);
      const left = await readdir(taskLayout(fx.tasks.dataDir, id).dir);
      assert.deepEqual(
        left.filter((name) => name.startsWith(".scratch-")),
        [],
        "no scratch repository is left behind",
      );
      assert.equal(existsSync(marker), false, "no command of the sandbox's ran");
    });
  }

  test("a .gitmodules that reuses a blob the repository already has is still checked", async () => {
    // The blob is in the user's history under another name, so the pack carries only the tree
    // that names it .gitmodules: git must read the blob from the user's objects to check it.
    const root = join(fx.root, "reuse");
    const text = `[submodule "x"]\n\tpath = x\n\turl = --upload-pack=touch ${marker}\n`;
    const { repo, head: base } = await makeRepo(join(root, "repo"), {
      files: { "notes.txt": text },
      commits: 0,
    });
    const work = join(root, "work");
    await git(root, "clone", "--quiet", repo, work);
    const w = new ObjectWriter(work, base);
    const blob = await git(work, "rev-parse", `${base}:notes.txt`);
    const tree = await w.baseTreeWith([["100644", "blob", blob, ".gitmodules"]]);
    const path = await w.bundle(join(root, "reuse.bundle"), await w.commit(tree));
    const facts = await verifyChanges({
      bundle: path,
      base,
      gitDir: join(repo, ".git"),
      objectFormat: "sha1",
      scratchParent: root,
    });
    assert.match(refusal(facts), new RegExp(`object ${blob}: gitmodulesUrl\\b`));
  });

  test("a refusal names the first few problems, counts the rest, and quotes git in clean text", async () => {
    const many = HOST_LIMITS.objectProblemsNamed + 2;
    let head = fx.head;
    const blobs: string[] = [];
    for (let i = 0; i < many; i++) {
      // A URL with a terminal escape and a bidi override, which git quotes as it is.
      const modules = await writer.blob(
        `[submodule "x"]\n\tpath = x\n\turl = --upload-pack=${i}\u001b[2J\u202e\n`,
      );
      blobs.push(modules);
      const tree = await writer.baseTreeWith([["100644", "blob", modules, ".gitmodules"]]);
      const w = new ObjectWriter(writer.work, head);
      head = await w.commit(tree);
    }
    const path = await writer.bundle(join(fx.root, "many.bundle"), head);
    const error = refusal(await verify(path));
    const named = blobs.filter((blob) => error.includes(`object ${blob}: gitmodulesUrl`));
    assert.equal(named.length, HOST_LIMITS.objectProblemsNamed);
    assert.match(error, /; and 2 more$/);
    assert.match(error, /--upload-pack=0\?\[2J\?/);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point.
    assert.doesNotMatch(error, /[\x00-\x1f\x7f\u202e]/);
  });

  test("a well-formed pack whose tree names an object that is nowhere is refused", async () => {
    const readme = await git(writer.work, "rev-parse", `${fx.head}:README.md`);
    const missing = "1".repeat(40);
    const tree = await gitWithInput(
      writer.work,
      `100644 blob ${missing}\tmissing.txt\n100644 blob ${readme}\tREADME.md\n`,
      "mktree",
      "--missing",
    );
    const head = await writer.commit(tree);
    // git will not bundle what it cannot read, so the bundle is put together by hand.
    const pack = await new Promise<Buffer>((resolve, reject) => {
      const child = spawn("git", ["pack-objects", "--stdout"], {
        cwd: writer.work,
        env: TEST_GIT_ENV,
        stdio: ["pipe", "pipe", "inherit"],
      });
      const out: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      child.on("error", reject);
      child.on("close", (code) => {
        if (code === 0) resolve(Buffer.concat(out));
        else reject(new Error(`pack-objects exited with ${String(code)}`));
      });
      child.stdin.end(`${head}\n${tree}\n`);
    });
    const path = join(fx.root, "missing.bundle");
    await writeFile(
      path,
      Buffer.concat([
        Buffer.from(`# v2 git bundle\n-${fx.head} base\n${head} refs/heads/warden/task\n\n`),
        pack,
      ]),
    );
    const error = refusal(await verify(path));
    assert.match(error, new RegExp(`did not receive expected object ${missing}`));
  });

  test("a normal bundle still passes the check, and diff and fetch take it", async () => {
    const added = await writer.blob("a change\n");
    const head = await writer.commit(
      await writer.baseTreeWith([["100644", "blob", added, "change.txt"]]),
    );
    const path = await writer.bundle(join(fx.root, "normal.bundle"), head);
    assert.deepEqual(await verify(path), { kind: "verified", head, commits: 1 });
    const id = await finishedTask(path, head);
    const diff = await diffTask(fx.tasks, id);
    assert.match(diff.diff, /^\+a change$/m);
    const fetched = await fetchTask(fx.tasks, id);
    assert.equal(await git(fx.repo, "rev-parse", fetched.branch), head);
    await git(fx.repo, "branch", "-D", fetched.branch);
  });

  test("a task on top of a history with a commit git's fsck refuses is still verified", async () => {
    // Only the bundle's own objects are checked: a user's old malformed commit is theirs, and
    // must not make every task on top of it fail.
    const root = join(fx.root, "old-history");
    const { repo } = await makeRepo(join(root, "repo"), { commits: 0 });
    const tree = await git(repo, "rev-parse", "HEAD^{tree}");
    const parent = await git(repo, "rev-parse", "HEAD");
    const base = await writeRawCommit(
      repo,
      `tree ${tree}\nparent ${parent}\n` +
        "author Old <old@example.com> 1000000000 +99999\n" +
        "committer Old <old@example.com> 1000000000 +0000\n\nan old import\n",
    );
    await git(repo, "update-ref", "refs/heads/main", base);
    const work = join(root, "work");
    await git(root, "clone", "--quiet", repo, work);
    const w = new ObjectWriter(work, base);
    const head = await w.commit(
      await w.baseTreeWith([["100644", "blob", await w.blob("x\n"), "x.txt"]]),
    );
    const path = await w.bundle(join(root, "on-old.bundle"), head);
    const facts = await verifyChanges({
      bundle: path,
      base,
      gitDir: join(repo, ".git"),
      objectFormat: "sha1",
      scratchParent: root,
    });
    assert.deepEqual(facts, { kind: "verified", head, commits: 1 });
  });

  test("the user's git config cannot weaken the check", async () => {
    // Every setting that could turn a problem of fsck's into a warning or skip an object, in
    // the user's global config, in a template git init would copy, and in the repository's own.
    const home = join(fx.root, "home");
    const templates = join(home, "templates");
    await mkdir(templates, { recursive: true });
    const hostile = HOSTILE.filter((h) => h.id === "hasDotgit" || h.id === "badTimezone");
    const made = [];
    for (const h of hostile) made.push(await hostileBundle(h));
    const skipList = join(home, "skip");
    await writeFile(skipList, made.map((m) => m.bad + "\n").join(""));
    const weaken = [
      "[fsck]\n\thasDotgit = ignore\n\tbadTimezone = ignore\n",
      `\tskipList = ${skipList}\n`,
      '[fetch "fsck"]\n\thasDotgit = ignore\n\tbadTimezone = ignore\n',
      `\tskipList = ${skipList}\n`,
      '[receive "fsck"]\n\thasDotgit = ignore\n\tbadTimezone = ignore\n',
      `\tskipList = ${skipList}\n`,
      "[transfer]\n\tfsckObjects = false\n",
    ].join("");
    await writeFile(join(templates, "config"), weaken);
    await writeFile(join(home, ".gitconfig"), weaken + `[init]\n\ttemplateDir = ${templates}\n`);
    await mkdir(join(home, "xdg", "git"), { recursive: true });
    await writeFile(join(home, "xdg", "git", "config"), weaken);
    const repoConfig = join(fx.repo, ".git", "config");
    const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    const ownConfig = await git(fx.repo, "config", "--local", "--list");
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = join(home, "xdg");
    await writeFile(repoConfig, weaken, { flag: "a" });
    try {
      for (const [i, { path, head, bad }] of made.entries()) {
        const id = await finishedTask(path, head);
        await assert.rejects(fetchTask(fx.tasks, id), { code: "BAD_OBJECTS" });
        await assert.rejects(diffTask(fx.tasks, id), { code: "BAD_OBJECTS" });
        assert.equal(await hasObject(fx.repo, bad), false);
        const error = refusal(await verify(path));
        assert.match(error, new RegExp(`object ${bad}: ${hostile[i]?.id ?? "?"}\\b`));
      }
    } finally {
      if (saved.HOME === undefined) delete process.env.HOME;
      else process.env.HOME = saved.HOME;
      if (saved.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
      for (const section of ["fsck", "fetch.fsck", "receive.fsck", "transfer"]) {
        await git(fx.repo, "config", "--local", "--remove-section", section);
      }
    }
    assert.equal(await git(fx.repo, "config", "--local", "--list"), ownConfig);
  });
});

describe("an agent that commits objects git's fsck refuses", { skip: NO_SANDBOX }, () => {
  let fx: HostFixture;
  before(async () => {
    fx = await hostFixture();
  });
  after(async () => {
    await fx.cleanup();
  });

  test("its task fails with an error naming the problem, and fetch has nothing to give", async () => {
    // Inside the sandbox, plain git writes a commit whose tree has a .GIT directory: git's own
    // commands write such trees without a word; only fsck refuses them.
    const script = [
      'blob=$(printf "[core]\\n\\tfsmonitor = true\\n" | git hash-object -w --stdin)',
      'inner=$(printf "100644 blob %s\\tconfig\\n" "$blob" | git mktree)',
      'tree=$( (git ls-tree HEAD; printf "040000 tree %s\\t.GIT\\n" "$inner") | git mktree)',
      'git update-ref HEAD "$(git commit-tree -p HEAD -m evil "$tree")"',
    ].join(" && ");
    const { summary } = await createTask(fx.tasks, {
      repo: fx.repo,
      prompt: "commit a .GIT directory\n",
      agent: "command",
      command: ["sh", "-c", script],
      limits: TEST_LIMITS,
    });
    const refsBefore = await git(fx.repo, "for-each-ref");
    const outcome = await executeTask(fx.tasks, summary.id, { env: {} });
    if (outcome.kind !== "finished") assert.fail(`the task was ${outcome.kind}`);
    assert.equal(outcome.terminal.state, "failed");
    assert.match(
      outcome.terminal.error ?? "",
      /^changes\.bundle was refused: the task's changes fail git's strict object check: object [0-9a-f]{40}: hasDotgit, /,
    );
    assert.notEqual(outcome.terminal.details?.changes, true);
    await assert.rejects(fetchTask(fx.tasks, summary.id), { code: "NO_CHANGES" });
    assert.equal(await git(fx.repo, "for-each-ref"), refsBefore);
  });
});
