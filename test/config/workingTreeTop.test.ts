import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { workingTreeTop } from "../../src/config/workingTreeTop.js";

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
let root: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" }).trim();
}

/** What `git rev-parse --show-toplevel` says for `dir`: the answer the walk must match. */
function gitsTop(dir: string): string | undefined {
  try {
    const top = git(dir, "rev-parse", "--show-toplevel");
    return top === "" ? undefined : top;
  } catch {
    return undefined;
  }
}

/** Runs `fn` with PATH emptied, so that any attempt to start git fails. */
async function withoutGit<T>(fn: () => Promise<T>): Promise<T> {
  const path = process.env.PATH;
  process.env.PATH = "";
  try {
    return await fn();
  } finally {
    process.env.PATH = path;
  }
}

function makeRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "a.txt"), "a\n");
  git(dir, "add", ".");
  git(dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "a");
  return dir;
}

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "warden-top-")));
  const repo = makeRepo(join(root, "repo"));
  mkdirSync(join(repo, "src", "deep"), { recursive: true });
  git(repo, "worktree", "add", "-q", join(root, "linked"), "-b", "side");
  // An empty `.git` directory is no repository: git looks past it to the one above.
  mkdirSync(join(repo, "src", "stray", ".git"), { recursive: true });
  // Nor is a `.git` directory holding only a config file.
  mkdirSync(join(repo, "src", "half", ".git"), { recursive: true });
  writeFileSync(join(repo, "src", "half", ".git", "config"), "[core]\n\tbare = false\n");
  symlinkSync(join(repo, "src"), join(root, "link-to-src"));
  mkdirSync(join(root, "plain"));
});

after(() => {
  rmSync(root, { recursive: true, force: true });
});

const CASES = [
  ["the top of a repository", "repo"],
  ["a directory deep in a repository", "repo/src/deep"],
  ["a linked worktree, whose .git is a file", "linked"],
  ["a directory below an empty .git directory", "repo/src/stray"],
  ["a directory below a .git directory with a config alone", "repo/src/half"],
  ["a repository's own .git directory", "repo/.git"],
  ["a path through a symbolic link", "link-to-src"],
  ["a directory in no repository", "plain"],
  ["a directory that does not exist", "repo/missing"],
] as const;

for (const [what, path] of CASES) {
  test(`the top found for ${what} is git's own answer`, async () => {
    const dir = join(root, path);
    assert.equal(await workingTreeTop(dir), gitsTop(dir));
  });
}

test("the top of an ordinary repository is found without starting git", async () => {
  const dir = join(root, "repo", "src", "deep");
  const top = await withoutGit(() => workingTreeTop(dir));
  assert.equal(top, join(root, "repo"));
});

test("with GIT_DIR set, git itself is asked", async () => {
  // Without git to ask, nothing can be said: the walk's answer is not used.
  process.env.GIT_DIR = join(root, "repo", ".git");
  try {
    const top = await withoutGit(() => workingTreeTop(join(root, "repo", "src")));
    assert.equal(top, undefined);
  } finally {
    delete process.env.GIT_DIR;
  }
});

test("a repository whose config moves its working tree is left to git", async () => {
  const repo = makeRepo(join(root, "moved"));
  mkdirSync(join(root, "elsewhere"));
  git(repo, "config", "core.worktree", join(root, "elsewhere"));
  assert.equal(await withoutGit(() => workingTreeTop(repo)), undefined);
  assert.equal(await workingTreeTop(repo), gitsTop(repo));
});
