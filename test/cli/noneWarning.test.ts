// `--sandbox none` says that the runner is not isolated exactly once, where a person sees it and
// in the task's events, rather than once from the host and again from the runner's stderr.
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { idOf, runArgs, runCli } from "../e2e/fixtures.js";

/** How many times `text` says the runner is not isolated. */
function warnings(text: string): number {
  return text.split("\n").filter((line) => /NOT isolated/.test(line)).length;
}

describeCli("the none sandbox's warning", (ws) => {
  test("a run in the none sandbox warns once, and its events hold it once", async () => {
    const run = await runCli(ws.dataDir, runArgs(ws.repo, "x", ["--sandbox", "none"], ["true"]));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(warnings(run.stderr), 1, run.stderr);
    const watch = await runCli(ws.dataDir, ["watch", idOf(run)]);
    assert.equal(watch.code, 0, watch.stderr);
    assert.equal(warnings(watch.stdout + watch.stderr), 1, watch.stdout + watch.stderr);
  });
});
