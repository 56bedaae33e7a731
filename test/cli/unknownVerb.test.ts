// A misspelt verb, as a person and a script see it: one line that names the verb warden
// guessed, a hint, exit 2; with --json, the usage error object every verb prints.
import assert from "node:assert/strict";
import { test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { runCli } from "../e2e/fixtures.js";

describeCli("an unknown verb", (ws) => {
  test("a misspelt verb says on one line which verb was meant, and exits 2", async () => {
    const result = await runCli(ws.dataDir, ["shwo"]);
    assert.equal(result.code, 2);
    assert.equal(result.stdout, "");
    assert.equal(
      result.stderr,
      "warden: unknown command 'shwo'. Did you mean show?\nhint: see `warden --help`\n",
    );
  });

  test("a misspelt verb given --json is one USAGE object on stdout, exit 2", async () => {
    const result = await runCli(ws.dataDir, ["shwo", "--json"]);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, "");
    assert.deepEqual(JSON.parse(result.stdout), {
      error: "unknown command 'shwo'. Did you mean show?",
      code: "USAGE",
      hint: "see `warden --help`",
    });
  });
});
