// What only Codex's reader does; what every reader does is in streamContract.ts. The golden
// inputs are streams of Codex CLI 0.171: the shared captures, and more captured the same way.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { AgentEvent } from "../../src/agents/agentEvent.js";
import { CodexLedger } from "../../src/agents/codex/ledger.js";
import { CodexStreamReader, codexStreamReader } from "../../src/agents/codex/stream.js";
import { capturedLines, ofType, readLines, replayLive } from "./streamKit.js";

function read(lines: readonly string[], reader = codexStreamReader()): AgentEvent[] {
  return readLines(reader, lines);
}

/** A captured stream's lines (`exec-1` is fixtures/codex-exec-1.jsonl). */
function fixture(name: string): string[] {
  return capturedLines(`codex-${name}`);
}

describe("the Codex stream reader on real streams", () => {
  test("a run that only answers reads as session, one turn, its text, usage and result", () => {
    assert.deepEqual(read(fixture("exec-1")), [
      { type: "session", sessionId: "01a228a1-31c2-7c62-aa1f-28f61e8e59f3" },
      { type: "turn_started", turn: 1 },
      { type: "assistant_text", text: "Done. Wrote out.txt.", cut: false },
      { type: "turn_ended", turn: 1 },
      { type: "usage", inputTokens: 240, outputTokens: 60 },
      { type: "result", ok: true, turns: 1, message: "Done. Wrote out.txt." },
    ]);
  });

  test("a run with a command reads the command as a shell tool call and its output as its result", () => {
    assert.deepEqual(read(fixture("exec-2")), [
      { type: "session", sessionId: "01a228a1-43a2-7e10-9d3b-84465a05046f" },
      { type: "turn_started", turn: 1 },
      {
        type: "tool_use",
        id: "item_0",
        name: "shell",
        summary: "/bin/bash -lc 'echo hello > out.txt && cat out.txt'",
      },
      { type: "tool_result", id: "item_0", ok: true, summary: "hello" },
      { type: "assistant_text", text: "Done. Wrote out.txt.", cut: false },
      { type: "turn_ended", turn: 1 },
      { type: "usage", inputTokens: 240, outputTokens: 60 },
      { type: "result", ok: true, turns: 1, message: "Done. Wrote out.txt." },
    ]);
  });

  test("Codex's warning items (unknown model metadata) are not turned into events", () => {
    const events = read(fixture("exec-tool"));
    assert.deepEqual(
      events.map((e) => e.type),
      [
        "session",
        "turn_started",
        "tool_use",
        "tool_result",
        "assistant_text",
        "turn_ended",
        "usage",
        "result",
      ],
    );
  });

  test("an API error fails the turn with the API's message", () => {
    const events = read(fixture("exec-400"));
    assert.deepEqual(ofType(events, "result"), [
      {
        type: "result",
        ok: false,
        turns: 1,
        message:
          '{"error":{"message":"bad request from scripted","type":"invalid_request_error","code":400,"status":"INVALID_ARGUMENT"}}',
      },
    ]);
    assert.equal(ofType(events, "retry").length, 0);
  });

  test("each reconnection reads as a retry with its attempt, and the last error fails the turn", () => {
    const events = read(fixture("exec-500"));
    const retries = ofType(events, "retry");
    assert.deepEqual(
      retries.map((r) => r.attempt),
      [1, 2, 3, 4, 5],
    );
    assert.deepEqual(retries[0], {
      type: "retry",
      attempt: 1,
      message: "We’re currently experiencing high demand, which may cause temporary errors.",
    });
    const [result] = ofType(events, "result");
    assert.ok(result !== undefined && !result.ok);
    assert.match(result.message ?? "", /high demand/);
  });

  test("a retry that quotes an HTTP status carries it", () => {
    const [retry] = codexStreamReader().line(
      JSON.stringify({
        type: "error",
        message:
          "Reconnecting... 2/5 (unexpected status 404 Not Found: not here, url: http://127.0.0.1:9/v1/responses)",
      }),
    );
    assert.deepEqual(retry, {
      type: "retry",
      attempt: 2,
      status: 404,
      message: "unexpected status 404 Not Found: not here, url: http://127.0.0.1:9/v1/responses",
    });
  });

  test("a retry without a number (waiting for network) is numbered by the reader", () => {
    const reader = codexStreamReader();
    const waiting = JSON.stringify({
      type: "error",
      message: "Reconnecting... waiting for network (Connection failed: error sending request)",
    });
    assert.deepEqual(
      [...reader.line(waiting), ...reader.line(waiting)].map(
        (e) => e.type === "retry" && e.attempt,
      ),
      [1, 2],
    );
  });
});

describe("Codex usage and turns across resumes", () => {
  test("two runs of two threads add their usage and number their turns on", () => {
    const ledger = new CodexLedger();
    const first = read(fixture("exec-1"), codexStreamReader(ledger));
    const second = read(fixture("exec-2"), codexStreamReader(ledger));
    assert.deepEqual(ofType(first, "usage"), [
      { type: "usage", inputTokens: 240, outputTokens: 60 },
    ]);
    assert.deepEqual(ofType(second, "usage"), [
      { type: "usage", inputTokens: 480, outputTokens: 120 },
    ]);
    assert.deepEqual(ofType(second, "turn_started"), [{ type: "turn_started", turn: 2 }]);
    assert.equal(ofType(second, "result")[0]?.turns, 2);
    assert.deepEqual(ledger.tokens, { inputTokens: 480, outputTokens: 120 });
  });

  test("a resumed thread's running total counts only what the resume added", () => {
    // Real: a run with a command (two model calls, 480 tokens in), then a resume of its thread
    // (one call of 240), which Codex reports as the thread's total of 720.
    const ledger = new CodexLedger();
    read(fixture("exec-tool"), codexStreamReader(ledger));
    const resumed = read(fixture("exec-resume"), codexStreamReader(ledger));
    assert.deepEqual(ofType(resumed, "usage"), [
      { type: "usage", inputTokens: 720, outputTokens: 180 },
    ]);
    assert.deepEqual(ofType(resumed, "session"), [
      { type: "session", sessionId: "01a22903-34e3-76f2-b511-b97e447c3c07" },
    ]);
  });

  test("a resumed thread whose total started again counts whole, so usage never shrinks", () => {
    const ledger = new CodexLedger();
    const line = (input: number, output: number) =>
      JSON.stringify({
        type: "turn.completed",
        usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: output },
      });
    const thread = JSON.stringify({ type: "thread.started", thread_id: "t-1" });
    const totals = [
      [thread, '{"type":"turn.started"}', line(100, 10)],
      [thread, '{"type":"turn.started"}', line(300, 30)],
      [thread, '{"type":"turn.started"}', line(50, 5)],
    ].map((run) => ofType(read(run, codexStreamReader(ledger)), "usage")[0]);
    assert.deepEqual(
      totals.map((u) => [u?.inputTokens, u?.outputTokens]),
      [
        [100, 10],
        [300, 30],
        [350, 35],
      ],
    );
    assert.equal(ledger.turns, 3);
  });
});

describe("the Codex stream reader on items the captures do not have", () => {
  const item = (type: string, item: Record<string, unknown>) =>
    JSON.stringify({ type, item: { id: "item_9", ...item } });

  test("a file change, reported only when done, reads as a call and its result", () => {
    const events = read([
      item("item.completed", {
        type: "file_change",
        changes: [
          { path: "src/a.ts", kind: "update" },
          { path: "b.ts", kind: "add" },
        ],
        status: "completed",
      }),
    ]);
    assert.deepEqual(events, [
      { type: "tool_use", id: "item_9", name: "file_change", summary: "update src/a.ts, add b.ts" },
      { type: "tool_result", id: "item_9", ok: true },
    ]);
  });

  test("an MCP call reads with its server and tool, and its error makes the result fail", () => {
    const events = read([
      item("item.started", {
        type: "mcp_tool_call",
        server: "docs",
        tool: "search",
        arguments: { q: "x" },
        status: "in_progress",
      }),
      item("item.completed", {
        type: "mcp_tool_call",
        server: "docs",
        tool: "search",
        arguments: { q: "x" },
        error: { message: "server gone" },
        status: "failed",
      }),
    ]);
    assert.deepEqual(events, [
      { type: "tool_use", id: "item_9", name: "docs.search", summary: '{"q":"x"}' },
      { type: "tool_result", id: "item_9", ok: false, summary: "server gone" },
    ]);
  });

  test("a web search reads as a call with its query", () => {
    const events = read([
      item("item.started", { type: "web_search", query: "node streams" }),
      item("item.completed", { type: "web_search", query: "node streams" }),
    ]);
    assert.deepEqual(events, [
      { type: "tool_use", id: "item_9", name: "web_search", summary: "node streams" },
      { type: "tool_result", id: "item_9", ok: true },
    ]);
  });

  test("a failing command's result fails and says its exit code when it printed nothing", () => {
    const events = read([
      item("item.completed", {
        type: "command_execution",
        command: "false",
        aggregated_output: "",
        exit_code: 1,
        status: "failed",
      }),
    ]);
    assert.deepEqual(events.at(-1), {
      type: "tool_result",
      id: "item_9",
      ok: false,
      summary: "exit 1",
    });
  });

  test("a declined command reads as a permission denial", () => {
    const events = read([
      item("item.completed", {
        type: "command_execution",
        command: "rm -rf /",
        aggregated_output: "",
        exit_code: null,
        status: "declined",
      }),
    ]);
    assert.deepEqual(ofType(events, "permission_denied"), [
      { type: "permission_denied", tool: "shell", summary: "rm -rf /" },
    ]);
    assert.equal(ofType(events, "tool_result")[0]?.ok, false);
  });

  test("reasoning, to-do lists, updates and unknown kinds say nothing", () => {
    const events = read([
      item("item.completed", { type: "reasoning", text: "thinking" }),
      item("item.started", { type: "todo_list", items: [{ text: "a", completed: false }] }),
      item("item.updated", { type: "todo_list", items: [{ text: "a", completed: true }] }),
      JSON.stringify({ type: "item.plan.delta", item_id: "x", delta: "y" }),
      JSON.stringify({ type: "request_user_input", id: "t", call_id: "c", questions: [] }),
      JSON.stringify({ type: "thread.exploded" }),
    ]);
    assert.deepEqual(events, []);
  });

  test("a plan stands in for the answer when the turn has no message", () => {
    const events = read([
      '{"type":"turn.started"}',
      item("item.completed", { type: "plan", text: "1. do it" }),
      '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}',
    ]);
    assert.equal(ofType(events, "result")[0]?.message, "1. do it");
  });

  test("a stream that stops after an error, with no turn.failed, still ends in a failed result", () => {
    const events = read([
      '{"type":"turn.started"}',
      JSON.stringify({ type: "error", message: "stream disconnected" }),
    ]);
    assert.deepEqual(events.slice(1), [
      { type: "turn_ended", turn: 1 },
      { type: "result", ok: false, turns: 1, message: "stream disconnected" },
    ]);
  });

  test("a stream that just stops closes its turn and leaves the result to the outcome", () => {
    const events = read(['{"type":"turn.started"}']);
    assert.deepEqual(events, [
      { type: "turn_started", turn: 1 },
      { type: "turn_ended", turn: 1 },
    ]);
  });
});

describe("the Codex stream reader on hostile streams", () => {
  test("a thread id that is not a string, or could pass for an option, is never offered for resuming", () => {
    const events = read([
      '{"type":"thread.started","thread_id":["x"]}',
      '{"type":"thread.started","thread_id":"--help"}',
    ]);
    assert.deepEqual(ofType(events, "session"), [{ type: "session" }, { type: "session" }]);
  });

  test("an agent message whose text is not a string shows no text", () => {
    const events = read(['{"type":"item.completed","item":{"type":"agent_message","text":42}}']);
    assert.deepEqual(ofType(events, "assistant_text"), []);
  });

  test("a flood of started items keeps the reader's memory bounded and reads each call once", () => {
    const reader = new CodexStreamReader();
    let uses = 0;
    for (let i = 0; i < 5000; i++) {
      const started = JSON.stringify({
        type: "item.started",
        item: { id: `i${i}`, type: "web_search", query: "q" },
      });
      uses += reader.line(started).length;
    }
    const done = JSON.stringify({
      type: "item.completed",
      item: { id: "i4999", type: "web_search", query: "q" },
    });
    assert.equal(uses, 5000);
    assert.deepEqual(
      reader.line(done).map((e) => e.type),
      ["tool_result"],
    );
  });
});

describe("the Codex stream reader on a live process", () => {
  test("two live runs, the second a resume, add up through one ledger", async () => {
    const ledger = new CodexLedger();
    await replayLive("codex-exec-tool", codexStreamReader(ledger), { seed: 3 });
    const { events } = await replayLive("codex-exec-resume", codexStreamReader(ledger), {
      seed: 5,
    });
    assert.deepEqual(ofType(events, "usage"), [
      { type: "usage", inputTokens: 720, outputTokens: 180 },
    ]);
    assert.deepEqual(ofType(events, "result"), [
      { type: "result", ok: true, turns: 2, message: "Done. Wrote out.txt." },
    ]);
  });
});
