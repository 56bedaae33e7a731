// The run-time half of the rule that nothing skips in CI: scripts/runTests.sh, which the test
// script runs every file with, lists each skipped or todo test, and with CI=true a run that had
// any fails. Run for real on small test files of its own.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const RUN_TESTS = join(ROOT, "scripts", "runTests.sh");

/** Test files that the suite's own honesty check never reads: they live outside test/. */
const FILES: Record<string, string> = {
  "skips.test.ts": `import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
test("runs", () => { assert.ok(true); });
test("skips by option", { skip: "no such machine" }, () => { assert.ok(true); });
test("skips by the context", (t) => { t.skip(); });
describe("a skipped suite", { skip: "whole" }, () => { test("inner", () => { assert.ok(true); }); });
test("is todo", { todo: "later" }, () => { assert.ok(false); });
`,
  "runs.test.ts": `import { strict as assert } from "node:assert";
import { test } from "node:test";
test("runs", () => { assert.ok(true); });
`,
  "fails.test.ts": `import { strict as assert } from "node:assert";
import { test } from "node:test";
test("fails", () => { assert.ok(false); });
`,
};

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** runTests.sh on `files` with CI set as given; none of this test run's own runner context. */
async function runTests(files: string[], ci: boolean): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, WARDEN_TEST_CONCURRENCY: "1" };
  // A runner started inside a test would otherwise report to this one instead of to its own.
  delete env.NODE_TEST_CONTEXT;
  if (ci) env.CI = "true";
  else delete env.CI;
  const child = spawn(RUN_TESTS, files, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  const code = await new Promise<number | null>((done) => child.once("close", done));
  return { code, out, err };
}

/** The lines runTests.sh lists after the run, as `file:line: how: name (why)`. */
function listedSkips(out: string): string[] {
  const [, list = ""] = out.split("\nskipped or todo tests:\n");
  return list.split("\n").filter((line) => line !== "");
}

describe("scripts/runTests.sh and its skip counter", () => {
  let dir = "";
  const path = (name: string): string => join(dir, name);
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "warden-skips-"));
    for (const [name, text] of Object.entries(FILES)) await writeFile(join(dir, name), text);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test("every skipped and todo test is listed with its file, line and reason, and nothing that ran", async () => {
    const run = await runTests([path("skips.test.ts"), path("runs.test.ts")], false);
    assert.equal(run.code, 0, run.out + run.err);
    assert.deepEqual(listedSkips(run.out), [
      `${path("skips.test.ts")}:4: skipped: skips by option (no such machine)`,
      `${path("skips.test.ts")}:5: skipped: skips by the context`,
      `${path("skips.test.ts")}:6: skipped: a skipped suite (whole)`,
      `${path("skips.test.ts")}:7: todo: is todo (later)`,
    ]);
  });

  test("with CI=true a run that skipped a test fails, and says why", async () => {
    const run = await runTests([path("skips.test.ts"), path("runs.test.ts")], true);
    assert.equal(run.code, 1, run.out + run.err);
    assert.equal(listedSkips(run.out).length, 4, run.out);
    assert.match(run.err, /CI=true: a skipped or todo test fails the run/);
  });

  test("with CI=true a run where every test ran passes", async () => {
    const run = await runTests([path("runs.test.ts")], true);
    assert.equal(run.code, 0, run.out + run.err);
    assert.deepEqual(listedSkips(run.out), []);
  });

  test("a failing test still fails the run, with or without CI", async () => {
    for (const ci of [false, true]) {
      const run = await runTests([path("fails.test.ts")], ci);
      assert.equal(run.code, 1, `CI=${String(ci)}: ${run.out}${run.err}`);
    }
  });
});
