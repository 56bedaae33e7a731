import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { BadSettingsError } from "../../src/protocol/index.js";
import { geminiLaunch, geminiSettings } from "../../src/agents/gemini/launch.js";

const OPTIONS = ["--output-format=stream-json", "--approval-mode=yolo", "--skip-trust"];

describe("launching Gemini CLI", () => {
  test("the smallest task runs gemini from PATH headless, with the prompt on stdin", () => {
    assert.deepEqual(geminiLaunch({ prompt: "do it" }), {
      argv: ["gemini", ...OPTIONS],
      env: { GEMINI_CLI_NO_RELAUNCH: "true" },
      stdin: "do it",
    });
  });

  test("the model, the program, the settings' home and the relay go in", () => {
    const plan = geminiLaunch({
      prompt: "do it",
      model: "gemini-2.5-pro",
      agentProgram: "/opt/agents/gemini",
      configHome: "/run/warden/gemini",
      api: { baseUrl: "http://127.0.0.1:3129" },
    });
    assert.deepEqual(plan, {
      argv: ["/opt/agents/gemini", ...OPTIONS, "--model=gemini-2.5-pro"],
      env: {
        GEMINI_CLI_NO_RELAUNCH: "true",
        GEMINI_CLI_HOME: "/run/warden/gemini",
        GOOGLE_GEMINI_BASE_URL: "http://127.0.0.1:3129",
      },
      stdin: "do it",
    });
  });

  test("a further message resumes the session by its id, the message on stdin", () => {
    const plan = geminiLaunch({
      prompt: "the first prompt",
      resume: { sessionId: "4d98fcc9-2f51-4556-9723-4748db806087", message: "now the tests" },
    });
    assert.deepEqual(plan.argv, [
      "gemini",
      ...OPTIONS,
      "--resume=4d98fcc9-2f51-4556-9723-4748db806087",
    ]);
    assert.equal(plan.stdin, "now the tests");
  });

  test("a prompt or message that looks like an option stays on stdin: argv never depends on it", () => {
    const plain = geminiLaunch({ prompt: "plain" }).argv;
    for (const text of ["--yolo", "-p", "--resume=latest", "-", "--"]) {
      const plan = geminiLaunch({ prompt: text });
      assert.equal(plan.stdin, text);
      assert.deepEqual(plan.argv, plain);
      const resumed = geminiLaunch({ prompt: "p", resume: { sessionId: "s1", message: text } });
      assert.equal(resumed.stdin, text);
      assert.deepEqual(resumed.argv, [...plain, "--resume=s1"]);
    }
  });

  test("a model starting with '-', or with a space, is refused even if settings let it by", () => {
    for (const model of ["-x", "--yolo", "gemini pro", "a\tb", ""]) {
      assert.throws(() => geminiLaunch({ prompt: "p", model }), BadSettingsError, model);
    }
  });

  test("a session id that could be read as an option, or is not plain, is refused", () => {
    for (const sessionId of ["-1", "--list-sessions", "", "latest;x", "a b"]) {
      assert.throws(
        () => geminiLaunch({ prompt: "p", resume: { sessionId, message: "m" } }),
        BadSettingsError,
        sessionId,
      );
    }
  });

  test("relative paths and a base URL that is not a plain URL are refused", () => {
    assert.throws(() => geminiLaunch({ prompt: "p", agentProgram: "gemini" }), BadSettingsError);
    assert.throws(() => geminiLaunch({ prompt: "p", configHome: "home" }), BadSettingsError);
    for (const baseUrl of ["javascript:alert(1)", "http://a b", "http://u:p@h"]) {
      assert.throws(() => geminiLaunch({ prompt: "p", api: { baseUrl } }), BadSettingsError);
    }
  });
});

describe("Gemini's settings file", () => {
  test("an unattended run neither updates nor reports, and has no turn bound by default", () => {
    assert.deepEqual(JSON.parse(geminiSettings({ prompt: "p" })), {
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      privacy: { usageStatisticsEnabled: false },
    });
  });

  test("through the relay it names the API key login, and maxTurns bounds the run", () => {
    const settings = JSON.parse(
      geminiSettings({ prompt: "p", maxTurns: 12, api: { baseUrl: "http://127.0.0.1:3129" } }),
    ) as Record<string, unknown>;
    assert.deepEqual(settings.security, { auth: { selectedType: "gemini-api-key" } });
    assert.deepEqual(settings.model, { maxSessionTurns: 12 });
    const unbounded = JSON.parse(geminiSettings({ prompt: "p", maxTurns: 0 })) as object;
    assert.ok(!("model" in unbounded));
  });

  test("a turn bound that is not a whole number of at least 0 is refused", () => {
    for (const maxTurns of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => geminiSettings({ prompt: "p", maxTurns }), BadSettingsError);
    }
  });
});
