// `warden rerun`: a new task with the old one's spec, run as `warden run` runs one, in the
// foreground or the background, printing the new id; the old task is left as it was.
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { cleanEnv, idOf, runCli, type CliResult } from "../e2e/fixtures.js";

interface Shown {
  id: string;
  state: string;
  title: string;
  base: string;
  repo: string;
  labels: Record<string, string>;
  settings: unknown;
}

async function show(dataDir: string, id: string): Promise<Shown> {
  const result = await runCli(dataDir, ["show", id, "--json"]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Shown;
}

/** The parts of a task's spec a rerun keeps. */
function specOf(task: Shown): Omit<Shown, "id" | "state"> {
  return {
    title: task.title,
    base: task.base,
    repo: task.repo,
    labels: task.labels,
    settings: task.settings,
  };
}

function lastLine(result: CliResult): string {
  return result.stdout.trim().split("\n").at(-1) ?? "";
}

describeCli("rerun", (ws) => {
  test("rerun of a finished task runs a new task with the same spec and prints its id", async () => {
    const first = await runCli(ws.dataDir, [
      ...["run", "--repo", ws.repo, "--prompt", "write the file", "--sandbox", "none"],
      ...["--timeout", "7m", "--", "sh", "-c", "echo again > again.txt"],
    ]);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const old = await show(ws.dataDir, idOf(first));

    const again = await runCli(ws.dataDir, ["rerun", old.id]);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    const newId = idOf(again);
    assert.notEqual(newId, old.id);
    const rerun = await show(ws.dataDir, newId);
    assert.equal(rerun.state, "succeeded");
    assert.deepEqual(specOf(rerun), specOf(old));
    assert.equal((await show(ws.dataDir, old.id)).state, "succeeded", "the old task is as it was");
    const diff = await runCli(ws.dataDir, ["diff", newId]);
    assert.match(diff.stdout, /^\+again$/m);

    const detached = await runCli(ws.dataDir, ["rerun", old.id, "--detach"]);
    assert.equal(detached.code, 0, detached.stderr);
    const third = lastLine(detached);
    assert.match(third, /^[0-9a-z]{26}$/);
    assert.equal((await runCli(ws.dataDir, ["wait", third])).code, 0);
    assert.deepEqual(specOf(await show(ws.dataDir, third)), specOf(old));
  });

  test("rerun of an unknown id is refused with exit 2 and makes no task", async () => {
    const before = await runCli(ws.dataDir, ["ls", "--json"]);
    const refused = await runCli(ws.dataDir, ["rerun", "0123456789abcdefghjkmnpqrs"]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /^warden: .+\nhint: .+\n$/);
    const after = await runCli(ws.dataDir, ["ls", "--json"]);
    assert.equal(
      (JSON.parse(after.stdout) as unknown[]).length,
      (JSON.parse(before.stdout) as unknown[]).length,
    );
  });

  test("rerun checks what running needs before it makes a task, as run does", async () => {
    const first = await runCli(
      ws.dataDir,
      [
        ...["run", "--repo", ws.repo, "--prompt", "use the token", "--sandbox", "none"],
        ...["--env", "RERUN_TOKEN", "--", "sh", "-c", 'test -n "$RERUN_TOKEN"'],
      ],
      { env: cleanEnv({ RERUN_TOKEN: "secret" }) },
    );
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const count = async (): Promise<number> =>
      (JSON.parse((await runCli(ws.dataDir, ["ls", "--json"])).stdout) as unknown[]).length;
    const before = await count();

    const refused = await runCli(ws.dataDir, ["rerun", idOf(first)]);
    assert.notEqual(refused.code, 0, refused.stdout);
    assert.match(refused.stderr, /RERUN_TOKEN/);
    assert.equal(await count(), before, "a refused rerun leaves no task behind");
  });
});
