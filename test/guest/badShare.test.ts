// A share the runner cannot start from ends the task with an archive whose result names what
// is wrong, so the host reports it like any other failure; a bad command line is exit 2.
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { test } from "node:test";
import { GUEST_MAIN, makeTask, runGuest, type TaskOptions, receivedOf } from "../support/share.js";

const cases: [string, TaskOptions, RegExp][] = [
  ["a missing task.json", { omit: ["task.json"] }, /task\.json.*missing/],
  [
    "an unknown field in task.json",
    { taskJson: JSON.stringify({ agent: "command", command: ["true"], sneaky: 1 }) },
    /bad settings/,
  ],
  ["task.json that is not JSON", { taskJson: "{agent: command" }, /not JSON/],
  ["an empty prompt", { prompt: "" }, /prompt\.md.*empty/],
  ["a prompt that is not UTF-8", { prompt: Buffer.from([0x66, 0xff, 0xfe]) }, /not UTF-8/],
  ["a prompt over 1 MiB", { prompt: "x".repeat(1024 * 1024 + 1) }, /over its limit/],
  ["a missing input.bundle", { omit: ["input.bundle"] }, /input\.bundle.*missing/],
];

for (const [what, options, error] of cases) {
  test(`${what} exits 1 with the error in the archive's result`, async (t) => {
    const fixture = await makeTask(options);
    t.after(() => fixture.cleanup());
    const run = await runGuest(fixture);
    assert.equal(run.exitCode, 1, run.stderr);
    const { result } = receivedOf(run);
    assert.match(result.error ?? "", error);
    assert.equal(result.agentExitCode, undefined, "the agent never ran");
    assert.equal(result.base, undefined);
    assert.deepEqual(Object.keys(receivedOf(run).files), ["result.json"]);
  });
}

test("an input.bundle that is not a bundle fails at the clone, with git's words", async (t) => {
  const fixture = await makeTask({ omit: ["input.bundle"] });
  t.after(() => fixture.cleanup());
  await writeFile(`${fixture.share}/input.bundle`, "not a bundle\n");
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 1);
  assert.match(receivedOf(run).result.error ?? "", /git failed to clone the input bundle/);
});

test("the result carries the code of the failure beside its error", async (t) => {
  const missing = await makeTask({ omit: ["input.bundle"] });
  t.after(() => missing.cleanup());
  assert.equal(receivedOf(await runGuest(missing)).result.errorCode, "BAD_SHARE");
  const notBundle = await makeTask({ omit: ["input.bundle"] });
  t.after(() => notBundle.cleanup());
  await writeFile(`${notBundle.share}/input.bundle`, "not a bundle\n");
  assert.equal(receivedOf(await runGuest(notBundle)).result.errorCode, "GIT_FAILED");
});

test("an unknown flag is a usage error: exit 2, a hint, and no archive", () => {
  const run = spawnSync(process.execPath, [GUEST_MAIN, "--sharee", "/x"], { encoding: "utf8" });
  assert.equal(run.status, 2);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /warden-guest: .*--sharee[\s\S]*hint: run warden-guest --help/);
});

test("--help explains every flag and exits 0", () => {
  const run = spawnSync(process.execPath, [GUEST_MAIN, "--help"], { encoding: "utf8" });
  assert.equal(run.status, 0);
  for (const flag of [
    "--share",
    "--workspace",
    "--scratch",
    "--metadata-port",
    "--own-pid-namespace",
    "--kill-grace-ms",
    "--agent-env",
    "WARDEN_GUEST_SHARE",
  ]) {
    assert.ok(run.stdout.includes(flag), flag);
  }
});

test("a scratch dir inside the workspace is refused before anything runs", async (t) => {
  const fixture = await makeTask({});
  t.after(() => fixture.cleanup());
  const run = spawnSync(
    process.execPath,
    [
      GUEST_MAIN,
      "--share",
      fixture.share,
      "--workspace",
      fixture.workspace,
      "--scratch",
      `${fixture.workspace}/.scratch`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /scratch directory must not be inside the workspace/);
});
