// `--repo` at a subdirectory of a repository: the task checks out and hands back the whole
// repository, and its agent runs in that subdirectory; a subdirectory the start commit does not
// have fails the task with the directory named.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  git,
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

  test("a subdirectory the start commit lacks fails the task, naming the directory", async () => {
    await mkdir(join(repo, "fresh"), { recursive: true });
    await writeFile(join(repo, "fresh", "new.txt"), "not committed\n");
    const run = await runCli(
      ws.dataDir,
      runArgs(join(repo, "fresh"), "work here", ["--json"], ["sh", "-c", "touch ran"]),
    );
    assert.equal(run.code, 1, run.stderr);
    const view = JSON.parse(run.stdout) as { state: string; error: string };
    assert.equal(view.state, "failed");
    assert.match(
      view.error,
      /the directory fresh the agent is to run in is not in the start commit/,
    );
    assert.equal(await git(repo, "status", "--porcelain"), "?? fresh/");
  });
});
