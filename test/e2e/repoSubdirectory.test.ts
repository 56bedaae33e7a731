// `--repo` at a subdirectory of a repository: the task checks out and hands back the whole
// repository, and its agent runs in that subdirectory; a subdirectory the start commit does not
// have as a directory is refused before a task is made, with the directory named.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  git,
  gitWithInput,
  makeRepo,
  NO_SYSTEM,
  runArgs,
  runCli,
  workspace,
  type Workspace,
} from "./fixtures.js";

describe("--repo at a subdirectory", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  let repo: string;

  before(async () => {
    ws = await workspace();
    ({ repo } = await makeRepo(join(ws.root, "mono"), {
      files: { "README.md": "# mono\n", "pkg/app/main.txt": "app\n" },
      commits: 0,
    }));
  });

  after(async () => {
    await ws.cleanup();
  });

  test("the agent runs in the subdirectory, and the changes are the whole repository's", async () => {
    const run = await runCli(
      ws.dataDir,
      runArgs(
        join(repo, "pkg", "app"),
        "work here",
        ["--json"],
        ["sh", "-c", "pwd; cat main.txt; echo made > made.txt; echo top > ../../top.txt"],
      ),
    );
    assert.equal(run.code, 0, run.stderr);
    const view = JSON.parse(run.stdout) as { id: string; changes: boolean };
    assert.equal(view.changes, true);
    const transcript = await runCli(ws.dataDir, ["logs", "--transcript", view.id]);
    const [where, content] = transcript.stdout.trim().split("\n");
    assert.match(where ?? "", /\/pkg\/app$/, transcript.stdout);
    assert.equal(content, "app");
    const diff = await runCli(ws.dataDir, ["diff", "--stat", view.id]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stdout, /pkg\/app\/made\.txt/);
    assert.match(diff.stdout, /^ ?top\.txt/m);
  });

  test("a subdirectory the start commit lacks is refused before a task is made, naming it", async () => {
    await mkdir(join(repo, "fresh"), { recursive: true });
    await writeFile(join(repo, "fresh", "new.txt"), "not committed\n");
    const before = await runCli(ws.dataDir, ["ls", "--json"]);
    const run = await runCli(
      ws.dataDir,
      runArgs(join(repo, "fresh"), "work here", [], ["sh", "-c", "touch ran"]),
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(
      run.stderr,
      /the directory fresh the agent is to run in is not in commit [0-9a-f]{12}: the agent runs in a clone of the commit/,
    );
    assert.match(run.stderr, /commit the directory first/);
    const afterRun = await runCli(ws.dataDir, ["ls", "--json"]);
    assert.equal(afterRun.stdout, before.stdout, "no task was made");
    assert.equal(await git(repo, "status", "--porcelain"), "?? fresh/");
  });

  test("a link committed in the subdirectory's place is refused as well", async () => {
    await mkdir(join(repo, "real"), { recursive: true });
    await writeFile(join(repo, "real", "f.txt"), "f\n");
    await git(repo, "add", "real");
    await git(repo, "commit", "-q", "-m", "real");
    await mkdir(join(repo, "linked"));
    await writeFile(join(repo, "linked", "g.txt"), "g\n");
    // The commit holds a link named linked (to real); the working tree a directory of that name.
    const target = await gitWithInput(repo, "real", "hash-object", "-w", "--stdin");
    await git(repo, "update-index", "--add", "--cacheinfo", `120000,${target},linked`);
    await git(repo, "commit", "-q", "-m", "a link in the directory's place");
    const run = await runCli(
      ws.dataDir,
      runArgs(join(repo, "linked"), "work here", [], ["sh", "-c", "touch ran"]),
    );
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /the directory linked the agent is to run in is not in commit/);
  });
});
