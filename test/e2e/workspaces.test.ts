// Several repositories in one task (--workspace NAME=PATH[@REV]): each bound repository is cloned
// beside the task's own in the real sandbox, listed by the metadata server, and comes back as a
// branch of its own that the host verified; fetch and diff take --workspace; a binding that
// cannot run is refused before the task exists.
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  cleanEnv,
  git,
  makeRepo,
  NO_SYSTEM,
  runArgs,
  runCli,
  snapshotRepo,
  workspace,
  type Workspace,
} from "./fixtures.js";

interface View {
  id: string;
  state: string;
  changes: boolean;
  summary?: string;
  error?: string;
  workspaces?: { name: string; changes: boolean }[];
}

describe("several repositories in one task", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  let lib: { repo: string; head: string };
  let docs: { repo: string; head: string };

  before(async () => {
    ws = await workspace();
    // Files of their own, so that no two repositories share a commit.
    lib = await makeRepo(join(ws.root, "lib"), { files: { "lib.txt": "the library\n" } });
    docs = await makeRepo(join(ws.root, "docs"), {
      files: { "index.md": "# docs\n" },
      commits: 1,
    });
  });
  after(async () => {
    await ws.cleanup();
  });

  async function run(
    options: string[],
    script: string,
    env?: Record<string, string>,
  ): Promise<View> {
    const result = await runCli(
      ws.dataDir,
      runArgs(
        ws.repo,
        "work in several repositories",
        ["--json", ...options],
        ["sh", "-c", script],
      ),
      env === undefined ? {} : { env },
    );
    const view = JSON.parse(result.stdout || "{}") as View;
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return view;
  }

  async function transcript(id: string): Promise<string> {
    return readFile(join(ws.dataDir, "tasks", id, "results", "transcript.jsonl"), "utf8");
  }

  test("two repositories come back as two verified branches, each fetched and diffed on its own", async () => {
    const appBefore = await snapshotRepo(ws.repo);
    const libBefore = await snapshotRepo(lib.repo);
    const view = await run(
      ["--workspace", `lib=${lib.repo}`],
      // A commit in each, and in lib a file left uncommitted, which the runner commits there.
      "echo app-change >> README.md && git commit -qam 'app change' && " +
        "cd ../lib && echo lib-change >> lib.txt && git commit -qam 'lib change' && " +
        "echo left > left.txt",
    );
    assert.equal(view.state, "succeeded");
    assert.equal(view.changes, true);
    assert.deepEqual(view.workspaces, [{ name: "lib", changes: true }]);
    assert.match(view.summary ?? "", /changes in workspace lib/);
    assert.deepEqual(await snapshotRepo(ws.repo), appBefore, "run alone changes no repository");
    assert.deepEqual(await snapshotRepo(lib.repo), libBefore, "run alone changes no repository");

    const libDiff = await runCli(ws.dataDir, ["diff", view.id, "--workspace", "lib"]);
    assert.equal(libDiff.code, 0, libDiff.stderr);
    assert.match(libDiff.stdout, /^\+lib-change$/m);
    assert.match(libDiff.stdout, /^\+left$/m, "the leftovers were committed in lib");
    assert.doesNotMatch(libDiff.stdout, /app-change/);
    const appDiff = await runCli(ws.dataDir, ["diff", view.id]);
    assert.match(appDiff.stdout, /^\+app-change$/m);
    assert.doesNotMatch(appDiff.stdout, /lib-change/);

    const fetchLib = await runCli(ws.dataDir, ["fetch", view.id, "--workspace", "lib", "--json"]);
    assert.equal(fetchLib.code, 0, fetchLib.stderr);
    const fetched = JSON.parse(fetchLib.stdout) as { repo: string; branch: string; head: string };
    assert.equal(fetched.repo, lib.repo, "lib's changes go into lib");
    assert.equal(fetched.branch, `warden/${view.id}`);
    assert.equal(await git(lib.repo, "rev-parse", `warden/${view.id}`), fetched.head);
    assert.equal(
      await git(lib.repo, "merge-base", "--is-ancestor", lib.head, fetched.head).then(() => true),
      true,
    );
    assert.equal(await git(lib.repo, "show", `${fetched.head}:left.txt`), "left");
    assert.equal(
      await git(ws.repo, "branch", "--list", `warden/${view.id}`),
      "",
      "fetching lib puts nothing into the task's own repository",
    );
    const fetchApp = await runCli(ws.dataDir, ["fetch", view.id, "--json"]);
    assert.equal(fetchApp.code, 0, fetchApp.stderr);
    assert.match(await git(ws.repo, "log", "-1", "--format=%s", `warden/${view.id}`), /app change/);
    assert.equal(await git(lib.repo, "rev-parse", "main"), lib.head, "lib's main is untouched");

    const show = await runCli(ws.dataDir, ["show", view.id, "--json"]);
    const shown = JSON.parse(show.stdout) as {
      workspaces: { name: string; repo: string; base: string; changes: boolean }[];
    };
    assert.deepEqual(
      shown.workspaces.map(({ name, repo, base, changes }) => ({ name, repo, base, changes })),
      [
        { name: "main", repo: ws.repo, base: ws.head, changes: true },
        { name: "lib", repo: lib.repo, base: lib.head, changes: true },
      ],
    );
    const text = await runCli(ws.dataDir, ["show", view.id]);
    assert.match(text.stdout, /^ {2}lib +\S+lib +base [0-9a-f]{12} +changed \(2 commits\)/m);
    assert.match(text.stdout, /warden fetch \S+ --workspace lib/);
  });

  test("workspaces are cloned side by side in binding order, listed so by the metadata server, the agent in its own", async () => {
    const docsBase = await git(docs.repo, "rev-parse", "HEAD~1");
    const view = await run(
      ["--workspace", `lib=${lib.repo}`, "--workspace", `docs=${docs.repo}@HEAD~1`],
      'pwd; ls ..; curl -s "$WARDEN_METADATA_URL/metadata/v1/workspaces" || node -e ' +
        "'fetch(process.env.WARDEN_METADATA_URL + \"/metadata/v1/workspaces\").then((r) => r.text()).then((t) => process.stdout.write(t))'",
    );
    assert.equal(view.state, "succeeded");
    const out = await transcript(view.id);
    const [cwd, ...rest] = out.split("\n");
    assert.equal(cwd, "/workspace/main", "the agent starts in the task's own repository");
    assert.deepEqual(rest.slice(0, 3).sort(), ["docs", "lib", "main"]);
    const documents = out
      .slice(out.indexOf("---"))
      .split(/^---\n/m)
      .filter((d) => d.trim() !== "");
    const field = (doc: string, name: string): string | undefined =>
      new RegExp(`^${name}: (.*)$`, "m").exec(doc)?.[1];
    assert.deepEqual(
      documents.map((d) => [
        field(d, "name"),
        field(d, "path"),
        field(d, "base"),
        field(d, "branch"),
        field(d, "source"),
      ]),
      [
        ["main", "/workspace/main", ws.head, "warden/task", ws.repo],
        ["lib", "/workspace/lib", lib.head, "warden/task", lib.repo],
        ["docs", "/workspace/docs", docsBase, "warden/task", docs.repo],
      ],
    );
    assert.deepEqual(view.workspaces, [
      { name: "lib", changes: false },
      { name: "docs", changes: false },
    ]);
  });

  test("an unchanged workspace gives no branch and says so, and its diff is empty", async () => {
    const view = await run(
      ["--workspace", `lib=${lib.repo}`],
      "echo only-app >> README.md && git commit -qam 'only app'",
    );
    assert.equal(view.state, "succeeded");
    assert.deepEqual(view.workspaces, [{ name: "lib", changes: false }]);
    const fetch = await runCli(ws.dataDir, ["fetch", view.id, "--workspace", "lib"]);
    assert.equal(fetch.code, 1);
    assert.match(fetch.stderr, /has no changes to fetch: it changed nothing in workspace lib/);
    assert.equal(await git(lib.repo, "branch", "--list", `warden/${view.id}`), "");
    const diff = await runCli(ws.dataDir, ["diff", view.id, "--workspace", "lib"]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.equal(diff.stdout, "");
    const show = await runCli(ws.dataDir, ["show", view.id]);
    assert.match(show.stdout, /^ {2}lib .*unchanged: no branch to fetch$/m);
    const other = await runCli(ws.dataDir, ["fetch", view.id, "--workspace", "nope"]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /bound no workspace nope \(its workspaces: lib\)/);
  });

  test("a workspace whose history the agent rewrote fails the task in its own name, and sends nothing of it", async () => {
    const result = await runCli(
      ws.dataDir,
      runArgs(
        ws.repo,
        "rewrite lib",
        ["--json", "--workspace", `lib=${lib.repo}`],
        [
          "sh",
          "-c",
          "echo kept >> README.md && git commit -qam kept && cd ../lib && " +
            "git checkout -q --orphan other && git commit -qm 'a new root'",
        ],
      ),
    );
    assert.equal(result.code, 1, result.stderr);
    const view = JSON.parse(result.stdout) as View;
    assert.equal(view.state, "failed");
    assert.match(
      view.error ?? "",
      /workspace lib: the history was rewritten: the task's head [0-9a-f]{40} does not descend from its base/,
    );
    assert.equal(view.changes, true, "the task's own repository's work is still verified");
    const fetch = await runCli(ws.dataDir, ["fetch", view.id, "--workspace", "lib"]);
    assert.equal(fetch.code, 1);
    assert.equal(await git(lib.repo, "branch", "--list", `warden/${view.id}`), "");
  });

  test("a binding that cannot run is refused before the task is created", async () => {
    const notRepo = join(ws.root, "not-a-repo");
    await mkdir(notRepo, { recursive: true });
    const cases: [string[], RegExp][] = [
      [["--workspace", lib.repo], /has no =/],
      [["--workspace", `../up=${lib.repo}`], /the name \.\.\/up cannot be a workspace's/],
      [["--workspace", `a.b=${lib.repo}`], /cannot be a workspace's/],
      [["--workspace", `${"x".repeat(33)}=${lib.repo}`], /over 32 bytes/],
      [["--workspace", `main=${lib.repo}`], /main is the task's own repository/],
      [
        ["--workspace", `lib=${lib.repo}`, "--workspace", `lib=${docs.repo}`],
        /the workspace name lib is bound twice/,
      ],
      [["--workspace", `other=${notRepo}`], /workspace other: .* is not a git repository/],
      [["--workspace", `gone=${join(ws.root, "missing")}`], /workspace gone: no such directory/],
      [["--workspace", `lib=${lib.repo}@no-such-rev`], /no-such-rev is not a commit in/],
      [["--workspace", `self=${ws.repo}`], /which the task works on already/],
      [
        ["--workspace", `lib=${lib.repo}`, "--workspace", `again=${lib.repo}/`],
        /is bound as lib already/,
      ],
    ];
    for (const [options, message] of cases) {
      const result = await runCli(ws.dataDir, [
        "create",
        "--repo",
        ws.repo,
        "--prompt",
        "x",
        "--json",
        ...options,
        "--",
        "true",
      ]);
      assert.equal(result.code, 2, `${options.join(" ")}: ${result.stdout}${result.stderr}`);
      const error = JSON.parse(result.stdout) as { code: string; error: string };
      assert.equal(error.code, "BAD_WORKSPACE", options.join(" "));
      assert.match(error.error, message);
    }
    const list = await runCli(ws.dataDir, ["ls", "--json"]);
    const ids = (JSON.parse(list.stdout) as { id: string }[]).map((t) => t.id);
    const created = await readdir(join(ws.dataDir, "tasks"));
    assert.deepEqual(created.sort(), ids.sort(), "only the earlier tests' tasks exist");
    assert.equal(ids.length, 4);
  });

  test("each repository has its own history cache, and gc removes every one unused as long", async () => {
    const caches = await readdir(join(ws.dataDir, "history"));
    assert.equal(caches.length, 3, "one cache each for the task's repository, lib and docs");
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const gc = await runCli(ws.dataDir, ["gc", "--older-than", "1s", "--json"]);
    assert.equal(gc.code, 0, gc.stderr);
    const outcome = JSON.parse(gc.stdout) as { historyCaches: { removed: string[] } };
    assert.equal(outcome.historyCaches.removed.length, 3);
    assert.deepEqual(await readdir(join(ws.dataDir, "history")), []);
  });

  test("the user's config binds workspaces, a repository's own file may not", async () => {
    const configHome = join(ws.root, "config-home");
    const userFile = join(configHome, "warden", "config.yaml");
    await mkdir(join(userFile, ".."), { recursive: true });
    await writeFile(userFile, `workspaces: ["lib=${lib.repo}"]\n`);
    const env = cleanEnv({ XDG_CONFIG_HOME: configHome });
    const fromUser = await run([], "true", env);
    assert.deepEqual(fromUser.workspaces, [{ name: "lib", changes: false }]);

    await writeFile(userFile, "model: m\n");
    const repoFile = join(ws.repo, ".warden", "config.yaml");
    await mkdir(join(repoFile, ".."), { recursive: true });
    await writeFile(repoFile, `workspaces: ["docs=${docs.repo}"]\n`);
    const result = await runCli(ws.dataDir, runArgs(ws.repo, "x", ["--json"], ["true"]), { env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /sets workspaces, which only your own config may set; ignored/);
    assert.equal((JSON.parse(result.stdout) as View).workspaces, undefined);

    await writeFile(userFile, 'workspaces: ["lib=relative/lib"]\n');
    const relative = await runCli(ws.dataDir, runArgs(ws.repo, "x", [], ["true"]), { env });
    assert.equal(relative.code, 2);
    assert.match(relative.stderr, /workspaces.* is not NAME=PATH\[@REV\] with an absolute PATH/);
    await rm(configHome, { recursive: true, force: true });
    await rm(join(ws.repo, ".warden"), { recursive: true, force: true });
  });
});
