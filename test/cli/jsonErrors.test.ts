// An error of a verb given --json, as a script sees it: one JSON object on stdout with the
// error's stable code and hint, nothing on stderr, and the same exit status as without --json.
// Run as a child process: `node dist/cli/warden.cjs`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import { describeCli } from "../support/cliSuite.js";
import { runCli, type CliResult } from "../e2e/fixtures.js";

/** The one JSON error a --json run printed: its exit status and the object, keys in order. */
function jsonError(result: CliResult, exit: number): { error: string; code: string; hint: string } {
  assert.equal(result.code, exit, result.stdout + result.stderr);
  assert.equal(result.stderr, "", "with --json an error goes to stdout only");
  assert.match(result.stdout, /^\{.*\}\n$/, "one object on one line");
  const value = JSON.parse(result.stdout) as { error: string; code: string; hint: string };
  assert.deepEqual(Object.keys(value), ["error", "code", "hint"]);
  return value;
}

describeCli("errors with --json", (ws) => {
  test("a bad id given to show --json is one JSON object with the code BAD_TASK_ID", async () => {
    const refused = jsonError(await runCli(ws.dataDir, ["show", "nope!", "--json"]), 2);
    assert.equal(refused.code, "BAD_TASK_ID");
    assert.equal(refused.error, '"nope!" is not a task id: it has characters no task id has');
    assert.match(refused.hint, /unique prefix/);
    const plain = await runCli(ws.dataDir, ["show", "nope!"]);
    assert.equal(plain.code, 2);
    assert.equal(plain.stdout, "");
    assert.equal(plain.stderr, `warden: ${refused.error}\nhint: ${refused.hint}\n`);
  });

  test("an unknown task is TASK_NOT_FOUND, exit 2; a log it has not made is NOTHING_TO_SHOW, exit 1", async () => {
    const missing = await runCli(ws.dataDir, ["wait", "0123456789abcdefghjkmnpqrs", "--json"]);
    assert.equal(jsonError(missing, 2).code, "TASK_NOT_FOUND");
    const tasks = await Tasks.open({ dataDir: ws.dataDir });
    const { id } = await tasks.create({ prompt: "never run", parent: null });
    const logs = await runCli(ws.dataDir, ["logs", id, "--agent-log", "--json"]);
    assert.equal(jsonError(logs, 1).code, "NOTHING_TO_SHOW");
  });

  test("an option commander refuses is USAGE with the verb's help as its hint", async () => {
    const refused = jsonError(await runCli(ws.dataDir, ["ls", "--json", "--bogus"]), 2);
    assert.deepEqual(refused, {
      error: "unknown option '--bogus'",
      code: "USAGE",
      hint: "see `warden ls --help`",
    });
  });
});
