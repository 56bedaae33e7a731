// What a task stores and what it refuses before anything is written.
import assert from "node:assert/strict";
import { test } from "node:test";
import { readHostSettings, RunnerMissingError } from "../../src/host/index.js";
import { agentBinds, guestProgram } from "../../src/host/guestProgram.js";
import { agentVariables, checkEnvNames } from "../../src/host/agentVariables.js";
import { guestSettings, hostSettings } from "../../src/host/hostSettings.js";

const ID = "01m8mes74kraq2hdhth2mf8c4y";

function stored(): Record<string, unknown> {
  return hostSettings({
    guest: { agent: "command", command: ["true"], timeoutSeconds: 60 },
    sandbox: "bwrap",
    allow: ["example.com"],
    presets: ["npm"],
    envNames: ["FOO"],
    gitDir: "/repo/.git",
    objectFormat: "sha1",
  });
}

test("stored settings keep the names of --env variables and never a value", () => {
  const settings = hostSettings({
    guest: { agent: "command", command: ["true"], env: { FOO: "secret-value" } },
    sandbox: "bwrap",
    allow: [],
    presets: [],
    envNames: ["FOO"],
    gitDir: "/repo/.git",
    objectFormat: "sha1",
  });
  assert.doesNotMatch(JSON.stringify(settings), /secret-value/);
  assert.deepEqual(readHostSettings(ID, settings).envNames, ["FOO"]);
});

test("task.json for an attach carries the spec's ids and the values read at that attach", () => {
  const host = readHostSettings(ID, stored());
  const settings = guestSettings(host, { id: ID, parent: null, hop: 0 }, { FOO: "bar" });
  assert.equal(settings.taskId, ID);
  assert.equal(settings.parentTaskId, undefined);
  assert.deepEqual(settings.env, { FOO: "bar" });
  assert.equal(settings.timeoutSeconds, 60);
});

test("settings the host did not write are refused as not a host task", () => {
  assert.throws(() => readHostSettings(ID, {}), { code: "NOT_A_HOST_TASK" });
  assert.throws(() => readHostSettings(ID, { ...stored(), extra: 1 }), { code: "NOT_A_HOST_TASK" });
});

test("--env names that are not names, or that warden sets itself, are refused", () => {
  assert.deepEqual(checkEnvNames(["NPM_TOKEN", "NPM_TOKEN"]), ["NPM_TOKEN"]);
  for (const name of [
    "1BAD",
    "A-B",
    "",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "WARDEN_TASK_ID",
    "warden_x",
    "PATH",
  ]) {
    assert.throws(() => checkEnvNames([name]), { code: "BAD_ENV_NAME" }, name);
  }
});

test("a variable named with --env that is not set stops the task before it is attached", () => {
  assert.deepEqual(agentVariables(["A"], { A: "1", B: "2" }), { A: "1" });
  assert.throws(() => agentVariables(["C"], { A: "1" }), { code: "MISSING_ENV" });
});

test("an agent outside the system directories is bound into the sandbox; a bare name is not", () => {
  assert.deepEqual(agentBinds(["sh", "-c", "x"]), []);
  assert.deepEqual(agentBinds(["/usr/bin/env"]), []);
  assert.deepEqual(agentBinds(["/opt/agent/bin/agent", "--x"]), ["/opt/agent/bin/agent"]);
  assert.deepEqual(agentBinds(undefined), []);
});

test("the test-only runner is used only with WARDEN_TESTING=1", () => {
  const script = new URL(import.meta.url).pathname;
  assert.notDeepEqual(guestProgram({ WARDEN_TEST_GUEST: script }).args, [script]);
  assert.deepEqual(guestProgram({ WARDEN_TESTING: "1", WARDEN_TEST_GUEST: script }).binds, [
    script,
  ]);
  assert.throws(
    () => guestProgram({ WARDEN_TESTING: "1", WARDEN_TEST_GUEST: "/nonexistent/guest.js" }),
    RunnerMissingError,
  );
});
