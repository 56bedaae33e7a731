import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { resolveStart } from "../../src/host/resolveStart.js";

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" }).trim();

async function repository(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "warden-start-")));
  t.after(() => rm(root, { recursive: true, force: true }));
  const repo = join(root, "repo");
  await mkdir(join(repo, "sub"), { recursive: true });
  await writeFile(join(repo, "sub", "a.txt"), "a\n");
  git(root, "init", "-q", "-b", "main", repo);
  git(repo, "add", ".");
  git(repo, "-c", "user.name=a", "-c", "user.email=a@a", "commit", "-q", "-m", "one");
  git(
    repo,
    "-c",
    "user.name=a",
    "-c",
    "user.email=a@a",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "two",
  );
  return repo;
}

test("the start names the git directory, the commit and the subdirectory the task runs in", async (t) => {
  const repo = await repository(t);
  assert.deepEqual(await resolveStart(repo), {
    gitDir: join(repo, ".git"),
    repo,
    base: git(repo, "rev-parse", "HEAD"),
    objectFormat: "sha1",
  });
  const below = await resolveStart(join(repo, "sub"), "HEAD~1");
  assert.equal(below.base, git(repo, "rev-parse", "HEAD~1"));
  assert.equal(below.workdir, "sub");
});

test("a start that is no commit, a shallow clone and a directory outside git are refused", async (t) => {
  const repo = await repository(t);
  await assert.rejects(resolveStart(repo, "nope"), /nope is not a commit in/);
  await assert.rejects(resolveStart(repo, "HEAD^{tree}"), /is not a commit in/);
  await assert.rejects(resolveStart(repo, "--all"), /bad revision: --all/);
  const shallow = join(repo, "..", "shallow");
  git(repo, "clone", "-q", "--depth", "1", `file://${repo}`, shallow);
  await assert.rejects(resolveStart(shallow), /is a shallow clone/);
  const plain = join(repo, "..", "plain");
  await mkdir(plain);
  await assert.rejects(resolveStart(plain), /is not a git repository/);
});
