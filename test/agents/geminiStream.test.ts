// What only Gemini's reader does; what every reader does is in streamContract.ts. The golden
// inputs are streams of Gemini CLI 0.61: the shared capture, and more captured the same way.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { AgentEvent } from "../../src/agents/agentEvent.js";
import { GeminiLedger } from "../../src/agents/gemini/ledger.js";
import { GeminiStreamReader, geminiStreamReader } from "../../src/agents/gemini/stream.js";
import { AGENT_EVENT_LIMITS } from "../../src/agents/limits.js";
import { capturedLines, ofType, readLines, replayLive, UNSAFE } from "./streamKit.js";

function read(lines: readonly string[], reader = geminiStreamReader()): AgentEvent[] {
  return readLines(reader, lines);
}

/** A captured stream's lines (`stream-1` is fixtures/gemini-stream-1.jsonl). */
function fixture(name: string): string[] {
  return capturedLines(`gemini-${name}`);
}

const json = (value: Record<string, unknown>) => JSON.stringify(value);

describe("the Gemini stream reader on real streams", () => {
  test("a run with a command reads as session, two turns, the call, its result, usage and result", () => {
    assert.deepEqual(read(fixture("stream-1")), [
      { type: "session", sessionId: "4d98fcc9-2f51-4556-9723-4748db806087", model: "auto" },
      { type: "turn_started", turn: 1 },
      { type: "assistant_text", text: "I will run a command.", cut: false },
      {
        type: "tool_use",
        id: "run_shell_command__run_shell_command_1795978030984_0",
        name: "run_shell_command",
        summary: "echo hello > out.txt && cat out.txt",
      },
      { type: "turn_ended", turn: 1 },
      {
        type: "tool_result",
        id: "run_shell_command__run_shell_command_1795978030984_0",
        ok: true,
        summary: "hello",
      },
      { type: "turn_started", turn: 2 },
      { type: "assistant_text", text: "Done. Wrote out.txt.", cut: false },
      { type: "turn_ended", turn: 2 },
      { type: "usage", inputTokens: 360, outputTokens: 90 },
      { type: "result", ok: true, turns: 2, message: "Done. Wrote out.txt." },
    ]);
  });

  test("an API error (429, the status mod 256 in the exit code) fails with the API's message", () => {
    const events = read(fixture("stream-429"));
    assert.deepEqual(ofType(events, "result"), [
      {
        type: "result",
        ok: false,
        turns: 0,
        message:
          "[API Error: scripted says 429]\nPlease wait and try again later. To increase your limits, request a quota increase through AI Studio, or switch to another /auth method",
      },
    ]);
    assert.equal(ofType(events, "turn_started").length, 0);
  });

  test("Gemini's own turn limit ends the run with stoppedBy turns", () => {
    const [result] = ofType(read(fixture("stream-turns")), "result");
    assert.deepEqual(result, {
      type: "result",
      ok: false,
      stoppedBy: "turns",
      turns: 1,
      message:
        "Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.",
    });
  });

  test("pieces of the model's text are joined into one assistant text", () => {
    const events = read([
      json({ type: "message", role: "assistant", content: "Hel", delta: true }),
      json({ type: "message", role: "assistant", content: "lo, ", delta: true }),
      json({ type: "message", role: "assistant", content: "world.", delta: true }),
      json({ type: "result", status: "success", stats: { input_tokens: 1, output_tokens: 2 } }),
    ]);
    assert.deepEqual(ofType(events, "assistant_text"), [
      { type: "assistant_text", text: "Hello, world.", cut: false },
    ]);
    assert.equal(ofType(events, "result")[0]?.message, "Hello, world.");
  });

  test("a failed tool call's result fails and says its error", () => {
    const events = read([
      json({
        type: "tool_use",
        tool_name: "read_file",
        tool_id: "t1",
        parameters: { file_path: "/nope" },
      }),
      json({
        type: "tool_result",
        tool_id: "t1",
        status: "error",
        output: "",
        error: { type: "FILE_NOT_FOUND", message: "File not found: /nope" },
      }),
    ]);
    assert.deepEqual(events, [
      { type: "turn_started", turn: 1 },
      { type: "tool_use", id: "t1", name: "read_file", summary: "/nope" },
      { type: "turn_ended", turn: 1 },
      { type: "tool_result", id: "t1", ok: false, summary: "File not found: /nope" },
    ]);
  });

  test("an error on the way is the reason of a result that gives none; warnings are not", () => {
    const events = read([
      json({ type: "error", severity: "warning", message: "Loop detected, stopping execution" }),
      json({ type: "error", severity: "error", message: "Invalid stream: empty response" }),
      json({ type: "result", status: "error", stats: {} }),
    ]);
    assert.deepEqual(ofType(events, "result"), [
      { type: "result", ok: false, turns: 0, message: "Invalid stream: empty response" },
    ]);
  });

  test("a stream that stops mid-turn closes its text and turn and leaves the result to the outcome", () => {
    const events = read([json({ type: "message", role: "assistant", content: "Work" })]);
    assert.deepEqual(events, [
      { type: "turn_started", turn: 1 },
      { type: "assistant_text", text: "Work", cut: false },
      { type: "turn_ended", turn: 1 },
    ]);
  });
});

describe("Gemini usage and turns across resumes", () => {
  test("a resumed run counts from zero, so the task's usage is the runs' sum", () => {
    const ledger = new GeminiLedger();
    read(fixture("stream-turns"), geminiStreamReader(ledger));
    const resumed = read(fixture("stream-resume"), geminiStreamReader(ledger));
    assert.deepEqual(ofType(resumed, "usage"), [
      { type: "usage", inputTokens: 360, outputTokens: 90 },
    ]);
    assert.deepEqual(ofType(resumed, "turn_started"), [{ type: "turn_started", turn: 2 }]);
    assert.equal(ofType(resumed, "result")[0]?.turns, 2);
    assert.deepEqual(ledger.tokens, { inputTokens: 360, outputTokens: 90 });
  });

  test("a run that writes two results is counted once, by its last", () => {
    const ledger = new GeminiLedger();
    const result = (n: number) =>
      json({ type: "result", status: "success", stats: { input_tokens: n, output_tokens: n } });
    read([result(10), result(25)], geminiStreamReader(ledger));
    read([result(5)], geminiStreamReader(ledger));
    assert.deepEqual(ledger.tokens, { inputTokens: 30, outputTokens: 30 });
  });
});

describe("the Gemini stream reader on hostile streams", () => {
  test("a session id that is not a string, or could pass for an option, is never offered for resuming", () => {
    const events = read([
      '{"type":"init","session_id":"-rf","model":{"x":1}}',
      '{"type":"init","session_id":42}',
    ]);
    assert.deepEqual(ofType(events, "session"), [{ type: "session" }, { type: "session" }]);
  });

  test("a tool call and a result with fields of the wrong type read as an unnamed call and a failure", () => {
    const events = read([
      '{"type":"tool_use","tool_name":7,"parameters":[1,2]}',
      '{"type":"tool_result","status":{"ok":true},"error":"x"}',
    ]);
    assert.deepEqual(ofType(events, "tool_use"), [{ type: "tool_use", name: "?", summary: "" }]);
    assert.deepEqual(ofType(events, "tool_result"), [{ type: "tool_result", ok: false }]);
  });

  test("a flood of text pieces is kept to one bounded, cut assistant text", () => {
    const reader = new GeminiStreamReader();
    const piece = json({
      type: "message",
      role: "assistant",
      content: "漢字".repeat(500),
      delta: true,
    });
    for (let i = 0; i < 10_000; i++) reader.line(piece);
    const [text] = ofType(reader.end(), "assistant_text");
    assert.ok(text?.cut);
    assert.ok(Buffer.byteLength(text.text) <= AGENT_EVENT_LIMITS.textBytes);
    assert.ok(!text.text.includes("\uFFFD"));
  });

  test("the model's name is cleaned and cut as a tool's name is", () => {
    const escape = "\u001b]8;;http://evil\u0007\u001b[31m\u202e\u2028";
    const init = json({ type: "init", session_id: "s-1", model: `${escape}${"m".repeat(10_000)}` });
    const [session] = ofType(read([init]), "session");
    assert.ok(session?.model !== undefined);
    assert.ok(Buffer.byteLength(session.model) <= AGENT_EVENT_LIMITS.nameBytes);
    assert.doesNotMatch(session.model, UNSAFE);
  });
});

describe("the Gemini stream reader on a live process", () => {
  test("the scripted agent's exit code (an HTTP 429 mod 256) reaches the runner", async () => {
    const replay = { seed: 9, exitCode: 173 };
    const { code } = await replayLive("gemini-stream-429", geminiStreamReader(), replay);
    assert.equal(code, 173);
  });
});
