// The commits a task hands back are by the person whose repository it is: the identity in the
// repository's git config unless --git-name and --git-email say otherwise, both for the commits
// the agent makes and for the one the runner makes of what the agent left uncommitted.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { writeFile } from "node:fs/promises";
import {
  cleanEnv,
  git,
  NO_SYSTEM,
  runArgs,
  runCli,
  workspace,
  type Workspace,
} from "./fixtures.js";

const COMMITS = "echo hi > hi.txt && git add hi.txt && git commit -qm hi";
const LEAVES = "echo left > left.txt";

describe("the identity of a task's commits", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;

  before(async () => {
    ws = await workspace();
    await git(ws.repo, "config", "user.name", "Ada Lovelace");
    await git(ws.repo, "config", "user.email", "ada@example.com");
  });

  after(async () => {
    await ws.cleanup();
  });

  /** Runs a shell agent, fetches its branch, and reads each new commit's author and committer. */
  async function identities(
    script: string,
    options: string[] = [],
    env: Record<string, string> = {},
  ): Promise<string[]> {
    const run = await runCli(
      ws.dataDir,
      runArgs(ws.repo, "work", ["--json", ...options], ["sh", "-c", script]),
      { env: cleanEnv(env) },
    );
    assert.equal(run.code, 0, run.stderr);
    const view = JSON.parse(run.stdout) as { id: string; changes: boolean };
    assert.equal(view.changes, true);
    const fetch = await runCli(ws.dataDir, ["fetch", view.id, "--json"]);
    assert.equal(fetch.code, 0, fetch.stderr);
    const { branch } = JSON.parse(fetch.stdout) as { branch: string };
    const log = await git(ws.repo, "log", "--format=%an <%ae>|%cn <%ce>", `${ws.head}..${branch}`);
    return log.split("\n");
  }

  test("the agent's own commit is by the repository's user.name and user.email", async () => {
    assert.deepEqual(await identities(COMMITS), [
      "Ada Lovelace <ada@example.com>|Ada Lovelace <ada@example.com>",
    ]);
  });

  test("the runner's commit of what the agent left is by the repository's identity too", async () => {
    assert.deepEqual(await identities(LEAVES), [
      "Ada Lovelace <ada@example.com>|Ada Lovelace <ada@example.com>",
    ]);
  });

  test("--git-name and --git-email win over the repository's config", async () => {
    const flags = ["--git-name", "Grace Hopper", "--git-email", "grace@example.com"];
    assert.deepEqual(await identities(COMMITS, flags), [
      "Grace Hopper <grace@example.com>|Grace Hopper <grace@example.com>",
    ]);
    assert.deepEqual(await identities(LEAVES, flags), [
      "Grace Hopper <grace@example.com>|Grace Hopper <grace@example.com>",
    ]);
  });

  test("GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL win over the repository's config, as in git, and the flags over them", async () => {
    const env = { GIT_AUTHOR_NAME: "Alan Turing", GIT_AUTHOR_EMAIL: "alan@example.com" };
    assert.deepEqual(await identities(COMMITS, [], env), [
      "Alan Turing <alan@example.com>|Alan Turing <alan@example.com>",
    ]);
    assert.deepEqual(await identities(LEAVES, ["--git-name", "Grace Hopper"], env), [
      "Grace Hopper <alan@example.com>|Grace Hopper <alan@example.com>",
    ]);
  });

  test("with no identity in the repository, the global config file GIT_CONFIG_GLOBAL names is read", async () => {
    const global = join(ws.root, "global.gitconfig");
    await writeFile(global, "[user]\n\tname = Edsger Dijkstra\n\temail = edsger@example.com\n");
    await git(ws.repo, "config", "--unset", "user.name");
    await git(ws.repo, "config", "--unset", "user.email");
    try {
      assert.deepEqual(await identities(COMMITS, [], { GIT_CONFIG_GLOBAL: global }), [
        "Edsger Dijkstra <edsger@example.com>|Edsger Dijkstra <edsger@example.com>",
      ]);
    } finally {
      await git(ws.repo, "config", "user.name", "Ada Lovelace");
      await git(ws.repo, "config", "user.email", "ada@example.com");
    }
  });

  test("a GIT_AUTHOR_EMAIL that cannot be a commit's is refused in the variable's name", async () => {
    const dataDir = join(ws.root, "refused-variable");
    const run = await runCli(dataDir, runArgs(ws.repo, "work", [], ["sh", "-c", LEAVES]), {
      env: cleanEnv({ GIT_AUTHOR_EMAIL: "eve>\nauthor x" }),
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /the variable GIT_AUTHOR_EMAIL .* cannot be a commit's user\.email/);
    assert.match(run.stderr, /unset GIT_AUTHOR_EMAIL/);
  });

  test("a --git-name with an angle bracket is refused before a task is made", async () => {
    const dataDir = join(ws.root, "refused");
    const run = await runCli(
      dataDir,
      runArgs(ws.repo, "work", ["--git-name", "Eve <root@example.com>"], ["sh", "-c", LEAVES]),
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--git-name .* cannot be a commit's user\.name/);
    const ls = await runCli(dataDir, ["ls", "--json"]);
    assert.deepEqual(JSON.parse(ls.stdout), [], "no task was made");
  });

  test("a user.email in the repository's config that cannot be a commit's is refused", async () => {
    const dataDir = join(ws.root, "refused-config");
    await git(ws.repo, "config", "user.email", "ada@example.com\nauthor eve");
    try {
      const run = await runCli(dataDir, runArgs(ws.repo, "work", [], ["sh", "-c", LEAVES]));
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /the repository's user\.email \(git config\) .* cannot be/);
      assert.match(run.stderr, /--git-email/);
    } finally {
      await git(ws.repo, "config", "user.email", "ada@example.com");
    }
  });
});
