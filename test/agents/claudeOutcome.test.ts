import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { adapterFor } from "../../src/agents/index.js";
import { SYNTHESIZED_TERMINAL_REASON, claudeOutcome } from "../../src/agents/claude/outcome.js";
import { capturedLastLine } from "./streamKit.js";

/** The last line of a captured stream (`run1` is fixtures/claude-run1.jsonl), parsed. */
function lastLine(name: string): Record<string, unknown> {
  return capturedLastLine(`claude-${name}`);
}

describe("how a Claude Code run ended", () => {
  test("a successful result and exit 0 is a success with the answer, the agent's own line kept", () => {
    const line = lastLine("run1");
    const outcome = claudeOutcome({ lastLine: line, exitCode: 0 });
    assert.equal(outcome.synthesized, false);
    assert.equal(outcome.agentResult, line);
    assert.deepEqual(outcome.result, {
      type: "result",
      ok: true,
      turns: 2,
      costUSD: 0.00216,
      message: "Done. Wrote out.txt.",
    });
  });

  test("an API error is a failure with the API's message, though its subtype says success", () => {
    const line = lastLine("run_400");
    assert.equal(line.subtype, "success");
    const outcome = claudeOutcome({ lastLine: line, exitCode: 1 });
    assert.equal(outcome.result.ok, false);
    assert.equal(outcome.result.message, "API Error: 400 bad thing");
  });

  test("bounds set stoppedBy: turns and budget", () => {
    assert.equal(
      claudeOutcome({ lastLine: lastLine("run_maxturns"), exitCode: 1 }).result.stoppedBy,
      "turns",
    );
    assert.equal(
      claudeOutcome({ lastLine: lastLine("run_budget"), exitCode: 1 }).result.stoppedBy,
      "budget",
    );
  });

  test("a result of an older Claude Code without terminal_reason is read by its subtype", () => {
    const line = { type: "result", subtype: "error_max_turns", is_error: true, num_turns: 4 };
    const { result } = claudeOutcome({ lastLine: line, exitCode: 1 });
    assert.equal(result.stoppedBy, "turns");
    assert.equal(result.message, "Claude Code reached its maximum number of turns");
  });

  test("a subtype never overrules terminal_reason", () => {
    const line = {
      type: "result",
      subtype: "error_max_turns",
      terminal_reason: "api_error",
      is_error: true,
      result: "API Error: 529 Overloaded",
    };
    const { result } = claudeOutcome({ lastLine: line, exitCode: 1 });
    assert.equal(result.stoppedBy, undefined);
    assert.equal(result.message, "API Error: 529 Overloaded");
  });

  test("SIGTERM with no result line gets a result made up by warden that says so", () => {
    const outcome = claudeOutcome({ lastLine: lastLine("run_sigTERM"), exitCode: 143 });
    assert.equal(outcome.synthesized, true);
    assert.deepEqual(outcome.result, {
      type: "result",
      ok: false,
      message: "Claude Code was stopped (exit 143, SIGTERM) before it wrote a result",
    });
    assert.deepEqual(outcome.agentResult, {
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      terminal_reason: SYNTHESIZED_TERMINAL_REASON,
      result: "Claude Code was stopped (exit 143, SIGTERM) before it wrote a result",
      exit_code: 143,
      made_up_by: "warden",
    });
  });

  test("no last line at all, or a crash, gets a made-up result with the exit code", () => {
    assert.equal(
      claudeOutcome({ lastLine: undefined, exitCode: 1 }).result.message,
      "Claude Code ended (exit 1) without writing a result",
    );
    assert.equal(
      claudeOutcome({ lastLine: undefined, exitCode: 137 }).result.message,
      "Claude Code was stopped (exit 137, SIGKILL) before it wrote a result",
    );
  });

  test("a successful last result followed by SIGTERM is not a success", () => {
    const line = lastLine("run1");
    const outcome = claudeOutcome({ lastLine: line, exitCode: 143 });
    assert.equal(outcome.synthesized, false);
    assert.equal(outcome.agentResult, line);
    assert.equal(outcome.result.ok, false);
    assert.equal(
      outcome.result.message,
      "Claude Code was stopped after its last result (exit 143, SIGTERM)",
    );
    assert.equal(outcome.result.costUSD, 0.00216);
  });

  test("the command agent is judged by its exit code, its last line kept as it was", () => {
    const command = adapterFor("command");
    assert.deepEqual(command.outcome({ lastLine: undefined, exitCode: 0 }), {
      result: { type: "result", ok: true },
      synthesized: false,
    });
    const line = { result: "all done" };
    assert.deepEqual(command.outcome({ lastLine: line, exitCode: 2 }), {
      result: { type: "result", ok: false, message: "all done" },
      agentResult: line,
      synthesized: false,
    });
    assert.deepEqual(command.outcome({ lastLine: undefined, exitCode: 2 }).result, {
      type: "result",
      ok: false,
      message: "the command exited with code 2",
    });
  });
});
