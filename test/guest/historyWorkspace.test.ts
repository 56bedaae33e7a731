import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { gitEnvironment } from "../../src/guest/gitSteps.js";
import { prepareWorkspace } from "../../src/guest/prepareWorkspace.js";

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" }).trim();

/** A history repository (bare, as the host's cache is) holding one commit of two files. */
async function history(root: string): Promise<{ repository: string; base: string; tree: string }> {
  const source = join(root, "source");
  await mkdir(join(source, "src"), { recursive: true });
  await writeFile(join(source, "README.md"), "hello\n");
  await writeFile(join(source, "src", "a.ts"), "export const a = 1;\n");
  git(root, "init", "-q", "-b", "main", source);
  git(source, "add", ".");
  git(source, "-c", "user.name=h", "-c", "user.email=h@h", "commit", "-q", "-m", "start");
  const repository = join(root, "history.git");
  git(root, "clone", "-q", "--bare", source, repository);
  return {
    repository,
    base: git(source, "rev-parse", "HEAD"),
    tree: git(source, "rev-parse", "HEAD^{tree}"),
  };
}

async function prepared(root: string, base: string, repository: string, name: string) {
  const workspace = join(root, "workspace");
  await mkdir(workspace);
  const result = await prepareWorkspace({
    input: { kind: "history", history: { repository, base } },
    identity: { name, email: "odd@example.com" },
    git: {
      workspace,
      env: gitEnvironment(process.env.PATH ?? "/usr/bin:/bin", join(root, "home")),
      signal: new AbortController().signal,
    },
    progress: () => undefined,
  });
  return { workspace, result };
}

test("a workspace made from the history is checked out at the base, on the task branch, with the identity", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "warden-history-ws-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const { repository, base } = await history(root);
  const name = 'Ada "the \\ Countess" #1; Lovelace';
  const { workspace, result } = await prepared(root, base, repository, name);

  assert.equal(result.base, base);
  assert.equal(await readFile(join(workspace, "src", "a.ts"), "utf8"), "export const a = 1;\n");
  assert.equal(git(workspace, "rev-parse", "HEAD"), base);
  assert.equal(git(workspace, "symbolic-ref", "HEAD"), "refs/heads/warden/task");
  assert.equal(git(workspace, "status", "--porcelain"), "", "the index matches the base");
  assert.equal(git(workspace, "config", "user.name"), name, "git reads the name back as given");
  assert.equal(git(workspace, "config", "user.email"), "odd@example.com");
  assert.equal(git(workspace, "for-each-ref", "--format=%(refname)"), "refs/heads/warden/task");
  assert.equal(result.config.toString(), await readFile(join(workspace, ".git", "config"), "utf8"));
  // The agent's commits carry the identity and build on the base.
  await writeFile(join(workspace, "new.txt"), "new\n");
  git(workspace, "add", "new.txt");
  git(workspace, "commit", "-q", "-m", "agent");
  assert.equal(git(workspace, "log", "-1", "--format=%an"), name);
  assert.equal(git(workspace, "rev-parse", "HEAD~1"), base);
  git(workspace, "fsck", "--no-progress");
});

test("a base that is not a commit of the history fails the checkout", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "warden-history-ws-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  const { repository, tree } = await history(root);
  await assert.rejects(prepared(root, tree, repository, "A"), /check out the base/);
  const missing = "0123456789abcdef0123456789abcdef01234567";
  await rm(join(root, "workspace"), { recursive: true });
  await assert.rejects(prepared(root, missing, repository, "A"), /check out the base/);
});
