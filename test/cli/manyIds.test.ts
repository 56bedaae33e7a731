// `cancel` and `wait` take several ids: each is resolved before anything is done, each task is
// reported on a line of its own, and `wait` exits with the largest of the tasks' exit codes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { idOf, runArgs, runCli } from "../e2e/fixtures.js";

describeCli("several ids for cancel and wait", (ws) => {
  const create = (): string[] => ["create", "--repo", ws.repo, "--prompt", "x", "--", "true"];

  test("cancel with an unknown id among its ids cancels nothing and exits 2", async () => {
    const id = idOf(await runCli(ws.dataDir, create()));
    const refused = await runCli(ws.dataDir, ["cancel", id, "0123456789abcdefghjkmnpqrs"]);
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    const shown = await runCli(ws.dataDir, ["show", id, "--json"]);
    assert.equal((JSON.parse(shown.stdout) as { state: string }).state, "created");
  });

  test("cancel of two tasks cancels both, one line each; wait on both exits 1", async () => {
    const first = idOf(await runCli(ws.dataDir, create()));
    const second = idOf(await runCli(ws.dataDir, create()));
    const cancel = await runCli(ws.dataDir, ["cancel", first, second]);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.equal(cancel.stdout, `${first} cancelled\n${second} cancelled\n`);
    const json = await runCli(ws.dataDir, ["cancel", first, second, "--json"]);
    const lines = json.stdout.trim().split("\n");
    assert.deepEqual(
      lines.map((line) => (JSON.parse(line) as { id: string }).id),
      [first, second],
    );
    const wait = await runCli(ws.dataDir, ["wait", first, second, "--json"]);
    assert.equal(wait.code, 1, wait.stderr);
    const states = wait.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; state: string });
    assert.deepEqual(states.map((s) => s.id).sort(), [first, second].sort());
    assert.ok(states.every((s) => s.state === "cancelled"));
  });

  test("wait exits with the worst status of its tasks: 0, 1 with a cancelled one, 4 with one nobody runs", async () => {
    const run = await runCli(ws.dataDir, runArgs(ws.repo, "x", ["--sandbox", "none"], ["true"]));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const done = idOf(run);
    const cancelled = idOf(await runCli(ws.dataDir, create()));
    await runCli(ws.dataDir, ["cancel", cancelled]);
    const idle = idOf(await runCli(ws.dataDir, create()));
    assert.equal((await runCli(ws.dataDir, ["wait", done])).code, 0);
    const worse = await runCli(ws.dataDir, ["wait", done, cancelled]);
    assert.equal(worse.code, 1, worse.stderr);
    assert.equal(worse.stdout.trim().split("\n").length, 2);
    const worst = await runCli(ws.dataDir, ["wait", done, cancelled, idle]);
    assert.equal(worst.code, 4, worst.stderr);
    assert.match(worst.stderr, /nobody runs it/);
    assert.equal(worst.stdout.trim().split("\n").length, 2);
  });
});
