// What `run` and `create` check before a task is written, and the warning `run` gives about
// the working tree: the built `warden` on a real repository, each refusal leaving no task
// behind, and the README's first example (`-- ./my-agent.sh`) with the script not committed.
import assert from "node:assert/strict";
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, git, runCli, type CliResult } from "../e2e/fixtures.js";
import { describeCli } from "../support/cliSuite.js";
import { parseStatus } from "../../src/host/committedTree.js";
import { uncommittedWarning } from "../../src/cli/uncommittedWarning.js";

function assertRefused(result: CliResult, code: number, what: RegExp, hint: RegExp): void {
  assert.equal(result.code, code, result.stdout + result.stderr);
  assert.equal(result.stdout, "", "no task id was printed");
  assert.match(result.stderr, /^warden: .+\nhint: .+\n$/);
  assert.match(result.stderr, what);
  assert.match(result.stderr.split("\n")[1] ?? "", hint);
}

const SCRIPT = "#!/bin/sh\necho agent ran\n";

describeCli("checks before a task is made", (ws) => {
  const tasksNow = async (): Promise<string> => (await runCli(ws.dataDir, ["ls", "-q"])).stdout;
  const run = (args: string[], env?: Record<string, string>): Promise<CliResult> =>
    runCli(ws.dataDir, ["run", "--repo", ws.repo, "--prompt", "x", ...args], {
      env: cleanEnv(env),
    });

  test("run and create of an agent without its API key are refused, and no task is left", async () => {
    const before = await tasksNow();
    for (const verb of ["run", "create"]) {
      const refused = await runCli(
        ws.dataDir,
        [verb, "--repo", ws.repo, "--prompt", "x", "--agent", "claude"],
        { env: cleanEnv() },
      );
      assertRefused(refused, 1, /the claude agent needs an API key/, /ANTHROPIC_API_KEY/);
    }
    assert.equal(await tasksNow(), before);
  });

  test("an agent program that is not there is refused before a task is made", async () => {
    const before = await tasksNow();
    const refused = await run(["--agent", "claude", "--agent-program", "/nonexistent/claude"], {
      ANTHROPIC_API_KEY: "sk-ant-test",
    });
    assertRefused(refused, 1, /is not an executable file/, /--agent-program/);
    assert.equal(await tasksNow(), before);
  });

  test("a command agent's script that is only in the working tree is refused: paths refer to the committed tree", async () => {
    await writeFile(join(ws.repo, "my-agent.sh"), SCRIPT, { mode: 0o755 });
    try {
      const before = await tasksNow();
      const refused = await run(["--", "./my-agent.sh"]);
      assertRefused(
        refused,
        2,
        /\.\/my-agent\.sh is not in commit [0-9a-f]{12}: .*paths in its command refer to the committed tree/,
        /commit it first \(git add \.\/my-agent\.sh && git commit\)/,
      );
      assert.equal(await tasksNow(), before);
    } finally {
      await git(ws.repo, "clean", "-fdq");
    }
  });

  test("a committed script without its executable bit is refused with how to fix it", async () => {
    await writeFile(join(ws.repo, "plain.sh"), SCRIPT);
    await git(ws.repo, "add", "plain.sh");
    await git(ws.repo, "commit", "-qm", "plain");
    const refused = await run(["--", "./plain.sh"]);
    assertRefused(refused, 2, /without its executable bit/, /--chmod=\+x .*sh \.\/plain\.sh/);
  });

  test("run warns once about uncommitted and untracked changes, and says the command's path is read from the commit", async () => {
    await writeFile(join(ws.repo, "agent.sh"), SCRIPT);
    await chmod(join(ws.repo, "agent.sh"), 0o755);
    await git(ws.repo, "add", "agent.sh");
    await git(ws.repo, "commit", "-qm", "agent");
    const clean = await run(["--", "./agent.sh"]);
    assert.equal(clean.code, 0, clean.stderr);
    assert.doesNotMatch(clean.stderr, /warning: the working tree/);

    await writeFile(join(ws.repo, "agent.sh"), SCRIPT + "echo edited\n");
    await writeFile(join(ws.repo, "new file.txt"), "new\n");
    try {
      const dirty = await run(["--", "./agent.sh"]);
      assert.equal(dirty.code, 0, dirty.stderr);
      const warnings = dirty.stderr.match(/warning: the working tree/g) ?? [];
      assert.equal(warnings.length, 1, dirty.stderr);
      assert.match(
        dirty.stderr,
        /warden: warning: the working tree has 1 uncommitted change and 1 untracked file \(agent\.sh, new file\.txt\); the task starts from commit [0-9a-f]{12} and will not see them; \.\/agent\.sh in the agent's command is read from that commit too\nhint: commit them first/,
      );
    } finally {
      await git(ws.repo, "checkout", "-q", "--", "agent.sh");
      await git(ws.repo, "clean", "-fdq");
    }
  });
});

test("git's status entries are counted by kind, paths with spaces and renames kept whole", () => {
  const status = [
    "# branch.oid 1111111111111111111111111111111111111111",
    "# branch.head main",
    "1 .M N... 100644 100644 100644 aaaa bbbb a file.txt",
    "2 R. N... 100644 100644 100644 aaaa bbbb R100 new name.txt\told name.txt",
    "u UU N... 100644 100644 100644 100644 aaaa bbbb cccc both.txt",
    "? untracked one.txt",
    "",
  ].join("\n");
  assert.deepEqual(parseStatus(status), {
    head: "1111111111111111111111111111111111111111",
    changed: 3,
    untracked: 1,
    paths: ["a file.txt", "new name.txt", "both.txt"],
  });
  assert.equal(parseStatus("# branch.oid (initial)\n").head, undefined);
});

test("no warning for a clean tree, or for a task that starts from another commit", () => {
  const base = "1".repeat(40);
  const dirty = { head: base, changed: 1, untracked: 0, paths: ["a"] };
  assert.equal(uncommittedWarning(dirty, base, undefined).length, 2);
  assert.deepEqual(uncommittedWarning({ ...dirty, changed: 0 }, base, undefined), []);
  assert.deepEqual(uncommittedWarning(dirty, "2".repeat(40), undefined), []);
  assert.doesNotMatch(uncommittedWarning(dirty, base, ["sh", "-c", "x"]).join("\n"), /command/);
});
