import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { BadSettingsError } from "../../src/protocol/index.js";
import { codexLaunch } from "../../src/agents/codex/launch.js";

const EXEC_OPTIONS = [
  "--json",
  "--skip-git-repo-check",
  "--dangerously-bypass-approvals-and-sandbox",
];

describe("launching Codex CLI", () => {
  test("the smallest task runs codex exec from PATH with the prompt on stdin", () => {
    assert.deepEqual(codexLaunch({ prompt: "do it" }), {
      argv: ["codex", "exec", ...EXEC_OPTIONS, "--", "-"],
      env: {},
      stdin: "do it",
    });
  });

  test("the model and the program go in, each value inside its own argument", () => {
    const plan = codexLaunch({
      prompt: "do it",
      model: "gpt-5-codex",
      agentProgram: "/opt/agents/codex",
    });
    assert.deepEqual(plan.argv, [
      "/opt/agents/codex",
      "exec",
      ...EXEC_OPTIONS,
      "--model=gpt-5-codex",
      "--",
      "-",
    ]);
  });

  test("the API relay becomes a model provider of its own, named by --config values", () => {
    const plan = codexLaunch({
      prompt: "do it",
      api: { baseUrl: "http://127.0.0.1:3129/v1", keyVariable: "WARDEN_OPENAI_KEY" },
    });
    assert.deepEqual(plan.argv.slice(2 + EXEC_OPTIONS.length, -2), [
      '--config=model_provider="warden"',
      '--config=model_providers.warden.name="warden"',
      '--config=model_providers.warden.base_url="http://127.0.0.1:3129/v1"',
      '--config=model_providers.warden.env_key="WARDEN_OPENAI_KEY"',
      '--config=model_providers.warden.wire_api="responses"',
    ]);
    assert.ok(
      codexLaunch({ prompt: "x", api: { baseUrl: "http://127.0.0.1:1/v1" } }).argv.includes(
        '--config=model_providers.warden.env_key="OPENAI_API_KEY"',
      ),
    );
  });

  test("a further message resumes the session, the id after -- and the message on stdin", () => {
    const plan = codexLaunch({
      prompt: "the first prompt",
      model: "gpt-5-codex",
      resume: { sessionId: "01a228a1-31c2-7c62-aa1f-28f61e8e59f3", message: "and now the tests" },
    });
    assert.deepEqual(plan, {
      argv: [
        "codex",
        "exec",
        "resume",
        ...EXEC_OPTIONS,
        "--model=gpt-5-codex",
        "--",
        "01a228a1-31c2-7c62-aa1f-28f61e8e59f3",
        "-",
      ],
      env: {},
      stdin: "and now the tests",
    });
  });

  test("a prompt or message that looks like an option stays on stdin: argv never depends on it", () => {
    const plain = codexLaunch({ prompt: "plain" }).argv;
    const plainResume = codexLaunch({
      prompt: "p",
      resume: { sessionId: "abc", message: "m" },
    }).argv;
    for (const text of ["--dangerously-bypass-approvals-and-sandbox", "-c x=1", "-", "--", "-h"]) {
      const first = codexLaunch({ prompt: text });
      assert.equal(first.stdin, text);
      assert.deepEqual(first.argv, plain);
      const resumed = codexLaunch({ prompt: "p", resume: { sessionId: "abc", message: text } });
      assert.equal(resumed.stdin, text);
      assert.deepEqual(resumed.argv, plainResume);
    }
  });

  test("the argv is plain strings: no shell, and no value split at a space", () => {
    const plan = codexLaunch({ prompt: "a; rm -rf / && echo $(id)", model: "m;id" });
    assert.ok(plan.argv.every((a) => typeof a === "string"));
    assert.ok(plan.argv.includes("--model=m;id"));
    assert.ok(!plan.argv.some((a) => a.includes("rm -rf")));
  });

  test("a model starting with '-', or with a space, is refused even if settings let it by", () => {
    for (const model of ["-x", "--help", "gpt 5", "gpt\n5", ""]) {
      assert.throws(() => codexLaunch({ prompt: "p", model }), BadSettingsError, model);
    }
  });

  test("a session id that could be read as an option, or is not plain, is refused", () => {
    for (const sessionId of ["-h", "--last", "", "a b", "a/b", "x".repeat(200)]) {
      assert.throws(
        () => codexLaunch({ prompt: "p", resume: { sessionId, message: "m" } }),
        BadSettingsError,
        sessionId,
      );
    }
  });

  test("a base URL that is not a plain URL, or a bad key variable, is refused", () => {
    for (const baseUrl of [
      'http://x"]\nmodel="y',
      "file:///etc",
      "http://u:p@host/v1",
      "ftp://x",
    ]) {
      assert.throws(() => codexLaunch({ prompt: "p", api: { baseUrl } }), BadSettingsError);
    }
    assert.throws(
      () => codexLaunch({ prompt: "p", api: { baseUrl: "http://h/v1", keyVariable: "A=B" } }),
      BadSettingsError,
    );
  });

  test("a program that is not an absolute path is refused", () => {
    assert.throws(() => codexLaunch({ prompt: "p", agentProgram: "codex" }), BadSettingsError);
  });
});
