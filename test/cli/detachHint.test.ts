// `run --detach` prints the new id alone on stdout, for scripts, and on stderr how a person
// follows the task, with an id short enough to type that `watch` resolves.
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { runArgs, runCli } from "../e2e/fixtures.js";

describeCli("run --detach's hint", (ws) => {
  test("run --detach says how to follow the task, and watch follows it by that id", async () => {
    const run = await runCli(
      ws.dataDir,
      runArgs(ws.repo, "x", ["--detach", "--sandbox", "none"], ["true"]),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^[0-9a-z]{26}\n$/, "stdout is the id alone");
    const id = run.stdout.trim();
    const hint = /^hint: follow it with `warden watch ([0-9a-z]+)`\n$/.exec(run.stderr);
    assert.ok(hint !== null, run.stderr);
    const short = hint[1] ?? "";
    assert.ok(id.startsWith(short) && short.length < id.length, short);
    const watch = await runCli(ws.dataDir, ["watch", short]);
    assert.equal(watch.code, 0, watch.stderr);
    assert.match(watch.stdout + watch.stderr, /succeeded/);
  });

  test("with --json the hint is left out and stdout is the JSON object alone", async () => {
    const run = await runCli(
      ws.dataDir,
      runArgs(ws.repo, "x", ["--detach", "--sandbox", "none", "--json"], ["true"]),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const view = JSON.parse(run.stdout) as { id: string; detached: boolean };
    assert.equal(view.detached, true);
    // The task must not outlive the test: the suite removes its store after the last test.
    const wait = await runCli(ws.dataDir, ["wait", view.id]);
    assert.equal(wait.code, 0, wait.stderr);
  });
});
