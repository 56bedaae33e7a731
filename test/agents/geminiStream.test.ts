import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { AGENT_EVENT_LIMITS, type AgentEvent } from "../../src/agents/agentEvent.js";
import { GeminiLedger, GeminiStreamReader, geminiStreamReader } from "../../src/agents/gemini.js";

/** Streams of Gemini CLI 0.61: the shared capture, and more captured the same way. */
/** Characters a terminal acts on: C0 and C1 controls, bidi overrides, line separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202e\u2028]/u;

function fixturePath(name: string): string {
  return fileURLToPath(new URL(`fixtures/gemini-${name}.jsonl`, import.meta.url));
}

function fixture(name: string): string[] {
  return readFileSync(fixturePath(name), "utf8").split("\n");
}

function read(lines: readonly string[], reader = geminiStreamReader()): AgentEvent[] {
  return [...lines.flatMap((line) => reader.line(line)), ...reader.end()];
}

function ofType<T extends AgentEvent["type"]>(events: AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
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
  test("garbage, unknown kinds and wrong field types never throw and are counted or ignored", () => {
    const reader = new GeminiStreamReader();
    const lines = [
      "",
      "garbage",
      "[]",
      "null",
      "{}",
      '{"type":null}',
      '{"type":"init","session_id":"-rf","model":{"x":1}}',
      '{"type":"init","session_id":42}',
      '{"type":"message","role":"assistant","content":["not","text"]}',
      '{"type":"tool_use","tool_name":7,"parameters":[1,2]}',
      '{"type":"tool_result","status":{"ok":true},"error":"x"}',
      '{"type":"result","status":"success","stats":{"input_tokens":-1,"output_tokens":"9"}}',
      '{"type":"result","status":"success","stats":[1]}',
      '{"type":"telemetry","payload":"whatever"}',
    ];
    const events: AgentEvent[] = [];
    for (const line of lines) events.push(...reader.line(line));
    events.push(...reader.end());
    assert.equal(reader.unreadableLines, 5);
    assert.deepEqual(ofType(events, "session"), [{ type: "session" }, { type: "session" }]);
    assert.deepEqual(ofType(events, "tool_use")[0], { type: "tool_use", name: "?", summary: "" });
    assert.deepEqual(ofType(events, "tool_result")[0], { type: "tool_result", ok: false });
    for (const usage of ofType(events, "usage")) {
      assert.ok(Number.isSafeInteger(usage.inputTokens) && usage.inputTokens >= 0);
      assert.ok(Number.isSafeInteger(usage.outputTokens) && usage.outputTokens >= 0);
    }
  });

  test("a 20 MiB line is skipped without parsing and counted", () => {
    const reader = new GeminiStreamReader();
    const huge = json({
      type: "message",
      role: "assistant",
      content: "y".repeat(20 * 1024 * 1024),
    });
    assert.deepEqual(reader.line(huge), []);
    assert.equal(reader.unreadableLines, 1);
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

  test("escape sequences never reach a summary or a name, and long texts are cut", () => {
    const escape = "\u001b]8;;http://evil\u0007\u001b[31m\u202e\u2028";
    const events = read([
      json({ type: "init", session_id: "s-1", model: `${escape}${"m".repeat(10_000)}` }),
      json({
        type: "tool_use",
        tool_name: `${escape}tool`.repeat(100),
        tool_id: "t".repeat(10_000),
        parameters: { command: `${escape}echo ${"a".repeat(100_000)}` },
      }),
      json({ type: "tool_result", tool_id: "t", status: "success", output: `${escape}\nline 2` }),
      json({
        type: "result",
        status: "error",
        error: { type: "x", message: `${escape}${"e".repeat(100_000)}` },
      }),
    ]);
    const [session] = ofType(events, "session");
    assert.ok(Buffer.byteLength(session?.model ?? "") <= 128);
    assert.doesNotMatch(session?.model ?? "", UNSAFE);
    const [use] = ofType(events, "tool_use");
    assert.ok(use !== undefined);
    assert.ok(Buffer.byteLength(use.name) <= 128 && Buffer.byteLength(use.id ?? "") <= 128);
    for (const summary of [use.summary, ofType(events, "tool_result")[0]?.summary ?? ""]) {
      assert.ok(Buffer.byteLength(summary) <= AGENT_EVENT_LIMITS.summaryBytes);
      assert.doesNotMatch(summary, UNSAFE);
    }
    assert.ok(
      Buffer.byteLength(ofType(events, "result")[0]?.message ?? "") <= AGENT_EVENT_LIMITS.textBytes,
    );
  });
});

describe("the Gemini stream reader on a live process", () => {
  test("a stream cut into arbitrary chunks reads exactly as the whole file does", async () => {
    const script = fileURLToPath(new URL("fixtures/replay-stream.js", import.meta.url));
    for (const seed of [2, 11, 4242]) {
      const child = spawn(process.execPath, [script, fixturePath("stream-1"), "0", String(seed)], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const reader = geminiStreamReader();
      const events: AgentEvent[] = [];
      for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
        events.push(...reader.line(line));
      }
      events.push(...reader.end());
      assert.deepEqual(events, read(fixture("stream-1")));
    }
  });

  test("the scripted agent's exit code (an HTTP 429 mod 256) reaches the runner", async () => {
    const script = fileURLToPath(new URL("fixtures/replay-stream.js", import.meta.url));
    const child = spawn(process.execPath, [script, fixturePath("stream-429"), "173", "9"], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 173);
  });
});
