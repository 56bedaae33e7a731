import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { AgentEvent } from "../../src/agents/agentEvent.js";
import { geminiExit } from "../../src/agents/gemini/exitCodes.js";
import { geminiOutcome } from "../../src/agents/gemini/outcome.js";

type Result = Extract<AgentEvent, { type: "result" }>;

const success = { type: "result", status: "success", stats: { input_tokens: 1, output_tokens: 1 } };
const apiError = (message: string) => ({
  type: "result",
  status: "error",
  error: { type: "unknown", message },
  stats: {},
});

describe("Gemini CLI's exit codes", () => {
  test("each code Gemini documents reads as its kind", () => {
    const kinds = Object.fromEntries(
      [0, 1, 41, 42, 44, 52, 53, 54, 55, 130].map((code) => [code, geminiExit(code).kind]),
    );
    assert.deepEqual(kinds, {
      0: "ok",
      1: "error",
      41: "auth",
      42: "input",
      44: "sandbox",
      52: "config",
      53: "turn_limit",
      54: "tool",
      55: "untrusted_workspace",
      130: "cancelled",
    });
  });

  test("the codes in 41-55 that Gemini does not use read as unknown", () => {
    for (const code of [43, 45, 46, 47, 48, 49, 50, 51]) {
      assert.equal(geminiExit(code).kind, "unknown", String(code));
    }
  });

  test("an HTTP status arrives mod 256 and is read back: 429, 500, 400, 503", () => {
    assert.deepEqual(
      [429, 500, 400, 503].map((status) => geminiExit(status % 256)),
      [
        { code: 173, kind: "http", httpStatus: 429, meaning: "got HTTP status 429 from the API" },
        { code: 244, kind: "http", httpStatus: 500, meaning: "got HTTP status 500 from the API" },
        { code: 144, kind: "http", httpStatus: 400, meaning: "got HTTP status 400 from the API" },
        { code: 247, kind: "http", httpStatus: 503, meaning: "got HTTP status 503 from the API" },
      ],
    );
  });

  test("a supervisor's signals read as signals, not as HTTP statuses", () => {
    assert.deepEqual(
      [137, 143].map((code) => geminiExit(code).kind),
      ["signal", "signal"],
    );
  });
});

describe("how a Gemini run ended", () => {
  test("exit 0 and a successful result succeed with the reader's answer and Gemini's own line", () => {
    const answered: Result = { type: "result", ok: true, turns: 2, message: "Done." };
    const outcome = geminiOutcome({ exitCode: 0, lastLine: success }, answered);
    assert.deepEqual(outcome.result, answered);
    assert.equal(outcome.agentResult, success);
    assert.equal(outcome.synthesized, false);
  });

  test("an API error's result and its exit code make one message", () => {
    const cases = [
      [173, 429],
      [244, 500],
      [144, 400],
    ] as const;
    for (const [exitCode, status] of cases) {
      const outcome = geminiOutcome({
        exitCode,
        lastLine: apiError(`[API Error: scripted says ${status}]`),
      });
      assert.deepEqual(outcome.result, {
        type: "result",
        ok: false,
        message: `Gemini CLI got HTTP status ${status} from the API (exit ${exitCode}): [API Error: scripted says ${status}]`,
      });
      assert.equal(outcome.exit.httpStatus, status);
      assert.equal(outcome.synthesized, false);
    }
  });

  test("exit 53 is the turn bound: stoppedBy turns, whatever the stream said", () => {
    const outcome = geminiOutcome({ exitCode: 53 }, { type: "result", ok: false, turns: 4 });
    assert.equal(outcome.result.stoppedBy, "turns");
    assert.equal(outcome.result.ok, false);
    assert.equal(outcome.result.turns, 4);
  });

  test("exit 41 writes no line in stream-json: the result is made up and says authentication", () => {
    const outcome = geminiOutcome({ exitCode: 41 });
    assert.equal(outcome.synthesized, true);
    assert.deepEqual(outcome.result, {
      type: "result",
      ok: false,
      message: "Gemini CLI could not authenticate (FatalAuthenticationError) (exit 41)",
    });
    assert.deepEqual(outcome.agentResult, {
      type: "result",
      status: "error",
      error: {
        type: "NoResultLine",
        message: "Gemini CLI could not authenticate (FatalAuthenticationError) (exit 41)",
      },
      exit_code: 41,
      made_up_by: "warden",
    });
  });

  test("each documented code fails with its meaning when there is no result line", () => {
    const meanings: Record<number, RegExp> = {
      1: /error it gave no code/,
      42: /refused its input/,
      44: /its own sandbox/,
      52: /settings invalid/,
      54: /fatal tool error/,
      55: /untrusted workspace/,
      130: /cancelled/,
      143: /stopped \(SIGTERM\)/,
    };
    for (const [code, meaning] of Object.entries(meanings)) {
      const outcome = geminiOutcome({ exitCode: Number(code) });
      assert.equal(outcome.result.ok, false, code);
      assert.match(outcome.result.message ?? "", meaning, code);
    }
  });

  test("exit 0 with an error result (an invalid response) fails with its message", () => {
    const outcome = geminiOutcome({ exitCode: 0, lastLine: apiError("Invalid stream") });
    assert.deepEqual(outcome.result, { type: "result", ok: false, message: "Invalid stream" });
  });

  test("exit 0 without any result is not taken for a success", () => {
    const outcome = geminiOutcome({
      exitCode: 0,
      lastLine: { type: "message", role: "assistant" },
    });
    assert.equal(outcome.result.ok, false);
    assert.equal(outcome.synthesized, true);
  });

  test("a successful result followed by a non-zero exit is a failure that says so", () => {
    const outcome = geminiOutcome({ exitCode: 143, lastLine: success });
    assert.equal(outcome.result.ok, false);
    assert.match(outcome.result.message ?? "", /after a successful result/);
  });

  test("a hostile result line is never trusted for more than it says", () => {
    for (const lastLine of [
      { type: "result", status: ["success"] },
      { type: "result", status: "error", error: { message: "e".repeat(100_000) } },
      { type: "result", status: "success", error: { type: "FatalTurnLimitedError" } },
    ]) {
      const outcome = geminiOutcome({ exitCode: 0, lastLine });
      assert.equal(outcome.result.ok, false);
      assert.ok(Buffer.byteLength(outcome.result.message ?? "") <= 4096);
    }
  });
});
