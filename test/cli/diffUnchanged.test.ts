// `diff` of a task that changed nothing: an empty diff and exit 0, as `git diff` answers, while
// `fetch` still refuses, since there is no branch to make.
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { idOf, NO_SYSTEM, runArgs, runCli } from "../e2e/fixtures.js";

describeCli("diff of a task that changed nothing", (ws) => {
  test("is empty and exits 0, in text and in JSON", { skip: NO_SYSTEM }, async () => {
    const run = await runCli(ws.dataDir, runArgs(ws.repo, "look only", [], ["true"]));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const id = idOf(run);
    const text = await runCli(ws.dataDir, ["diff", id]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, "");
    assert.equal(text.stderr, "");
    const json = await runCli(ws.dataDir, ["diff", id, "--stat", "--json"]);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), { id, base: ws.head, head: ws.head, diff: "" });
    const fetch = await runCli(ws.dataDir, ["fetch", id]);
    assert.equal(fetch.code, 1);
    assert.match(fetch.stderr, /it changed nothing/);
  });
});
