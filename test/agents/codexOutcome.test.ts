import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { AgentEvent } from "../../src/agents/agentEvent.js";
import { codexOutcome } from "../../src/agents/codex/outcome.js";

type Result = Extract<AgentEvent, { type: "result" }>;

const completed = {
  type: "turn.completed",
  usage: { input_tokens: 240, cached_input_tokens: 40, output_tokens: 60 },
};
const failed = { type: "turn.failed", error: { message: "API said no" } };
const answered: Result = { type: "result", ok: true, turns: 2, message: "Done." };

describe("how a Codex run ended", () => {
  test("a completed turn and exit 0 succeed with the reader's answer and Codex's own line", () => {
    assert.deepEqual(codexOutcome({ exitCode: 0, lastLine: completed }, answered), {
      result: answered,
      agentResult: completed,
      synthesized: false,
    });
  });

  test("a completed turn read from the last line alone also succeeds", () => {
    const outcome = codexOutcome({ exitCode: 0, lastLine: completed });
    assert.deepEqual(outcome.result, { type: "result", ok: true });
    assert.equal(outcome.synthesized, false);
  });

  test("a failed turn fails with its message, from the reader or the last line", () => {
    const fromLine = codexOutcome({ exitCode: 1, lastLine: failed });
    assert.deepEqual(fromLine.result, { type: "result", ok: false, message: "API said no" });
    assert.equal(fromLine.agentResult, failed);
    const reader: Result = { type: "result", ok: false, turns: 1, message: "API said no" };
    assert.deepEqual(codexOutcome({ exitCode: 1, lastLine: failed }, reader).result, reader);
  });

  test("a completed turn followed by a non-zero exit is a failure that says so", () => {
    const outcome = codexOutcome({ exitCode: 143, lastLine: completed }, answered);
    assert.equal(outcome.result.ok, false);
    assert.equal(outcome.result.turns, 2);
    assert.equal(
      outcome.result.message,
      "Codex CLI was stopped after its turn completed (exit 143, SIGTERM)",
    );
  });

  test("a run stopped before its turn ended gets a result made up by warden", () => {
    const outcome = codexOutcome({ exitCode: 143, lastLine: { type: "turn.started" } });
    assert.equal(outcome.synthesized, true);
    assert.equal(outcome.result.ok, false);
    assert.match(
      outcome.result.message ?? "",
      /stopped \(exit 143, SIGTERM\) before its turn ended/,
    );
    assert.deepEqual(outcome.agentResult, {
      type: "turn.failed",
      error: { message: "Codex CLI was stopped (exit 143, SIGTERM) before its turn ended" },
      exit_code: 143,
      made_up_by: "warden",
    });
  });

  test("a run that printed nothing and exited 0 is not taken for a success", () => {
    const outcome = codexOutcome({ exitCode: 0 });
    assert.equal(outcome.result.ok, false);
    assert.equal(outcome.synthesized, true);
    assert.match(outcome.result.message ?? "", /without ending its turn/);
  });

  test("a run killed while it reconnected fails with the last stream error", () => {
    const outcome = codexOutcome({
      exitCode: 137,
      lastLine: { type: "error", message: "Reconnecting... 3/5 (connection refused)" },
    });
    assert.equal(outcome.result.ok, false);
    assert.match(outcome.result.message ?? "", /Reconnecting/);
    assert.equal(outcome.synthesized, true);
  });

  test("a hostile last line is never trusted for more than it says", () => {
    for (const lastLine of [
      { type: "turn.completed", usage: "lots" },
      { type: "turn.failed", error: { message: 7 } },
      { type: "turn.failed", error: { message: "x".repeat(100_000) } },
      { type: "result", ok: true },
    ]) {
      const outcome = codexOutcome({ exitCode: 1, lastLine });
      assert.equal(outcome.result.ok, false, JSON.stringify(lastLine).slice(0, 80));
      assert.ok(Buffer.byteLength(outcome.result.message ?? "") <= 4096);
    }
  });
});
