// What only Claude Code's reader does; what every reader does is in streamContract.ts. The
// golden inputs are the real streams captured from Claude Code 2.1.332.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { AGENT_EVENT_LIMITS, type AgentEvent } from "../../src/agents/index.js";
import { ClaudeStreamReader } from "../../src/agents/claude/stream.js";
import { capturedLines, ofType, readLines } from "./streamKit.js";

/** One run's events from a captured stream (`run1` is fixtures/claude-run1.jsonl). */
function read(name: string): AgentEvent[] {
  return readLines(new ClaudeStreamReader(), capturedLines(`claude-${name}`));
}

describe("the Claude Code stream reader on real streams", () => {
  test("a successful run reads as session, two turns, a Bash call, its result, usage and result", () => {
    assert.deepEqual(read("run1"), [
      {
        type: "session",
        sessionId: "6a6cca99-94d4-4120-823c-119627d7a812",
        model: "claude-opus-5-5",
      },
      { type: "turn_started", turn: 1 },
      { type: "assistant_text", text: "I will run a command.", cut: false },
      {
        type: "tool_use",
        id: "toolu_01FAKE0001",
        name: "Bash",
        summary: "echo hello > out.txt && cat out.txt",
      },
      { type: "turn_ended", turn: 1 },
      { type: "tool_result", ok: true, id: "toolu_01FAKE0001", summary: "hello" },
      { type: "turn_started", turn: 2 },
      { type: "assistant_text", text: "Done. Wrote out.txt.", cut: false },
      { type: "turn_ended", turn: 2 },
      { type: "usage", inputTokens: 240, outputTokens: 60, costUSD: 0.00216 },
      { type: "result", ok: true, turns: 2, costUSD: 0.00216, message: "Done. Wrote out.txt." },
    ]);
  });

  test("an API error arrives as subtype success and still reads as a failure with its message", () => {
    const [result] = ofType(read("run_400"), "result");
    assert.deepEqual(result, {
      type: "result",
      ok: false,
      turns: 1,
      costUSD: 0,
      message: "API Error: 400 bad thing",
    });
  });

  test("the synthetic assistant message of an API error is not a turn of the model", () => {
    const events = read("run_400");
    assert.equal(ofType(events, "turn_started").length, 0);
    assert.equal(ofType(events, "assistant_text").length, 0);
  });

  test("each API retry reads as a retry with its attempt and status", () => {
    const retries = ofType(read("run_500"), "retry");
    assert.equal(retries.length, 10);
    assert.deepEqual(retries[0], {
      type: "retry",
      attempt: 1,
      status: 500,
      message: "server_error",
    });
    assert.deepEqual(
      retries.map((r) => r.attempt),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
  });

  test("the maximum turns end the run with stoppedBy turns", () => {
    const [result] = ofType(read("run_maxturns"), "result");
    assert.equal(result?.ok, false);
    assert.equal(result.stoppedBy, "turns");
    assert.equal(result.message, "Reached maximum number of turns (2)");
  });

  test("the maximum budget ends the run with stoppedBy budget and the cost spent", () => {
    const [result] = ofType(read("run_budget"), "result");
    assert.equal(result?.ok, false);
    assert.equal(result.stoppedBy, "budget");
    assert.equal(result.costUSD, 0.00108);
    assert.equal(result.message, "Reached maximum budget ($0.001)");
  });

  test("a permission denial is reported once, with the command that was denied", () => {
    const events = read("run_perm");
    assert.deepEqual(ofType(events, "permission_denied"), [
      { type: "permission_denied", tool: "Bash", summary: "echo hello > out.txt && cat out.txt" },
    ]);
    const [toolResult] = ofType(events, "tool_result");
    assert.equal(toolResult?.ok, false);
    assert.match(toolResult.summary ?? "", /^Output redirection .* …$/);
    assert.ok(Buffer.byteLength(toolResult.summary ?? "") <= AGENT_EVENT_LIMITS.summaryBytes);
  });

  test("a denial by a permission prompt tool is read from the result's list of denials", () => {
    const events = read("run_ppt_deny");
    assert.deepEqual(ofType(events, "permission_denied"), [
      { type: "permission_denied", tool: "Bash", summary: "echo hello > out.txt && cat out.txt" },
    ]);
    assert.equal(ofType(events, "result")[0]?.ok, true);
  });

  test("an approval by a permission prompt tool reads as a plain successful call", () => {
    const events = read("run_ppt");
    assert.equal(ofType(events, "permission_denied").length, 0);
    assert.deepEqual(
      ofType(events, "tool_result").map((r) => r.ok),
      [true],
    );
  });

  test("an interrupted run reads as a failure that says it was interrupted", () => {
    const [result] = ofType(read("run_sigINT"), "result");
    assert.equal(result?.ok, false);
    assert.equal(result.stoppedBy, undefined);
    assert.equal(result.message, "Claude Code was interrupted (aborted_tools)");
  });

  test("a run stopped by SIGTERM has no result, and its open turn is closed", () => {
    const events = read("run_sigTERM");
    assert.equal(ofType(events, "result").length, 0);
    assert.deepEqual(ofType(events, "tool_result")[0], {
      type: "tool_result",
      ok: false,
      id: "toolu_01FAKE0001",
      summary: "Exit code 137 …",
    });
    assert.equal(ofType(events, "turn_started").length, ofType(events, "turn_ended").length);
  });

  test("a second message on stdin gives a second result; usage adds up, the session is told once", () => {
    const events = read("run_sin");
    assert.equal(ofType(events, "session").length, 1);
    assert.deepEqual(
      ofType(events, "turn_started").map((t) => t.turn),
      [1, 2],
    );
    assert.deepEqual(ofType(events, "usage"), [
      { type: "usage", inputTokens: 120, outputTokens: 30, costUSD: 0.00108 },
      { type: "usage", inputTokens: 240, outputTokens: 60, costUSD: 0.00216 },
    ]);
    assert.deepEqual(
      ofType(events, "result").map((r) => [r.ok, r.costUSD]),
      [
        [true, 0.00108],
        [true, 0.00216],
      ],
    );
  });
});

describe("the Claude Code stream reader on hostile lines", () => {
  test("fields of the wrong type read as absent, and nothing throws", () => {
    const reader = new ClaudeStreamReader();
    const lines = [
      { type: "system", subtype: "init", session_id: 42, model: ["x"] },
      { type: "system", subtype: "api_retry", attempt: "one", error_status: -1, error: {} },
      { type: "assistant", message: "hello" },
      { type: "assistant", message: { id: 7, content: [{ type: "tool_use", name: 5, input: 3 }] } },
      {
        type: "user",
        message: { content: [{ type: "tool_result", is_error: "yes", content: 9 }] },
      },
      {
        type: "result",
        is_error: "false",
        num_turns: -3,
        total_cost_usd: "free",
        usage: { input_tokens: 1e300 * 10, output_tokens: -5 },
        permission_denials: [null, { tool_name: null }],
      },
    ];
    const events = lines.flatMap((l) => reader.line(JSON.stringify(l)));
    assert.deepEqual(ofType(events, "session"), [{ type: "session" }]);
    assert.deepEqual(ofType(events, "retry"), [{ type: "retry", attempt: 0 }]);
    assert.deepEqual(ofType(events, "tool_use"), [{ type: "tool_use", name: "?", summary: "" }]);
    assert.deepEqual(ofType(events, "tool_result"), [{ type: "tool_result", ok: true }]);
    assert.deepEqual(ofType(events, "permission_denied"), [
      { type: "permission_denied", tool: "?" },
    ]);
    assert.deepEqual(ofType(events, "usage"), [{ type: "usage", inputTokens: 0, outputTokens: 0 }]);
    // A result that does not say `is_error: false` did not succeed.
    assert.deepEqual(ofType(events, "result"), [
      { type: "result", ok: false, message: "Claude Code ended with an error" },
    ]);
  });

  test("a tool call's summary is one cleaned line, whatever the input holds", () => {
    const reader = new ClaudeStreamReader();
    const line = {
      type: "assistant",
      message: {
        id: "m1",
        content: [
          {
            type: "tool_use",
            id: "t1",
            name: "Bash",
            input: { command: "\u001b[2Jrm -rf x\necho 2" },
          },
          {
            type: "tool_use",
            id: "t2",
            name: "Write",
            input: { file_path: "/w/a.ts", content: "x" },
          },
          { type: "tool_use", id: "t3", name: "mcp__gh\u202e__x", input: { owner: "a", n: 1 } },
          { type: "tool_use", id: "t4", name: "TodoWrite", input: { todos: [{}, {}] } },
        ],
      },
    };
    const uses = ofType(reader.line(JSON.stringify(line)), "tool_use");
    assert.deepEqual(
      uses.map((u) => [u.name, u.summary]),
      [
        ["Bash", "?[2Jrm -rf x …"],
        ["Write", "/w/a.ts"],
        ["mcp__gh?__x", '{"owner":"a","n":1}'],
        ["TodoWrite", "2 to-dos"],
      ],
    );
  });

  test("a flood of tool calls keeps the reader's memory bounded and still reports denials", () => {
    const reader = new ClaudeStreamReader();
    for (let i = 0; i < 5000; i += 1) {
      const use = { type: "tool_use", id: `t${i}`, name: "Bash", input: { command: `echo ${i}` } };
      reader.line(JSON.stringify({ type: "assistant", message: { id: `m${i}`, content: [use] } }));
    }
    const early = reader.line(
      JSON.stringify({
        type: "system",
        subtype: "permission_denied",
        tool_use_id: "t0",
        tool_name: "Bash",
        message: "no",
      }),
    );
    assert.deepEqual(early, [{ type: "permission_denied", tool: "Bash", summary: "no" }]);
    const late = reader.line(
      JSON.stringify({
        type: "system",
        subtype: "permission_denied",
        tool_use_id: "t4999",
        tool_name: "Bash",
      }),
    );
    assert.deepEqual(late, [{ type: "permission_denied", tool: "Bash", summary: "echo 4999" }]);
  });
});
