// The shared hostile corpus: lines an agent's stdout may hold when the agent, or what it runs,
// is hostile or broken. Every stream reader is fed all of it, whichever agent a line imitates:
// a reader meets another agent's lines whenever a program is not the agent it claims to be.

const json = (value: unknown): string => JSON.stringify(value);

/**
 * Characters a terminal acts on: a title, a link, a clear screen, a colour, a bidi override, a
 * line separator.
 */
const ESCAPES = "\u001b]0;pwned\u0007\u001b]8;;http://evil\u0007\u001b[2J\u001b[31m\u202e\u2028";

/** Lines that are not JSON objects: every reader counts each as unreadable. */
export const NOT_OBJECTS: readonly string[] = [
  "not json",
  "garbage",
  "[1,2]",
  "[1,2,3]",
  "[]",
  "null",
  "42",
  "1e999",
  "true",
  '"result"',
  '"string"',
  "{",
  "}{",
  '{"type":"result"}{"type":"result"}',
  "{'type':'result'}",
  "\u0000\u0001",
  "\ud800",
  "\ufeff{}",
  `${"[".repeat(100_000)}${"]".repeat(100_000)}`,
];

/** Lines with nothing on them: read as nothing and counted as nothing. */
export const BLANK: readonly string[] = ["", " ", "\t", "\r", "  \r"];

/** Objects no agent writes: wrong types, unknown kinds, traps for a careless parser. */
const ANY_AGENT: readonly string[] = [
  "{}",
  '{"type":null}',
  '{"type":7}',
  '{"no":"type"}',
  '{"type":"telemetry","payload":"whatever"}',
  '{"__proto__":{"type":"result","polluted":true},"type":"result"}',
  '{"type":"result","constructor":{"prototype":{"polluted":true}}}',
  `${'{"type":"assistant","message":'.repeat(5_000)}null${"}".repeat(5_000)}`,
  json({ type: "result", result: "\ud800\udfff\udc00", num_turns: 1e308 }),
  json({
    type: "result",
    keys: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [i, i])),
  }),
];

/** Claude Code's kinds of lines, with fields of the wrong type, too long, or full of escapes. */
const CLAUDE: readonly string[] = [
  json({ type: "system", subtype: "init", session_id: 42, model: ["x"] }),
  json({ type: "system", subtype: "init", session_id: "s".repeat(10_000), model: ESCAPES }),
  json({ type: "system", subtype: "api_retry", attempt: "one", error_status: -1, error: {} }),
  json({
    type: "system",
    subtype: "api_retry",
    attempt: 1e300,
    error: `${ESCAPES}${"e".repeat(1e5)}`,
  }),
  json({ type: "system", subtype: "permission_denied", tool_use_id: ["x"], tool_name: ESCAPES }),
  json({ type: "assistant", message: "hello" }),
  json({
    type: "assistant",
    message: { id: 7, content: [{ type: "tool_use", name: 5, input: 3 }] },
  }),
  json({
    type: "assistant",
    message: {
      id: "m1",
      content: [
        { type: "text", text: `${ESCAPES}${"é".repeat(10_000)}` },
        { type: "tool_use", id: "t".repeat(10_000), name: `${ESCAPES}x`.repeat(500), input: {} },
        {
          type: "tool_use",
          id: "t2",
          name: "Bash",
          input: { command: `${ESCAPES}${"y".repeat(1e5)}` },
        },
      ],
    },
  }),
  // Nested deeper than JSON.stringify can go: a summary that stringifies the input must cope.
  `{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t3","name":"mcp__x","input":{"deep":${"[".repeat(10_000)}${"]".repeat(10_000)}}}]}}`,
  json({
    type: "user",
    message: { content: [{ type: "tool_result", is_error: "yes", content: 9 }] },
  }),
  json({
    type: "user",
    message: {
      content: [
        {
          type: "tool_result",
          tool_use_id: "u".repeat(1e4),
          content: [{ type: "text", text: `${ESCAPES}\n${"z".repeat(1e6)}` }],
        },
      ],
    },
  }),
  json({
    type: "result",
    is_error: "false",
    num_turns: -3,
    total_cost_usd: "free",
    usage: { input_tokens: 1e301, output_tokens: -5 },
    permission_denials: [null, { tool_name: null }, { tool_name: ESCAPES, tool_input: ESCAPES }],
  }),
  json({
    type: "result",
    is_error: true,
    total_cost_usd: 1e308,
    result: `${ESCAPES}${"w".repeat(1e5)}`,
  }),
];

/** Codex CLI's kinds of lines, likewise. */
const CODEX: readonly string[] = [
  '{"type":"thread.started","thread_id":["x"]}',
  '{"type":"thread.started","thread_id":"--help"}',
  '{"type":"turn.completed","usage":{"input_tokens":"lots","output_tokens":-5}}',
  '{"type":"turn.completed","usage":{"input_tokens":1e300,"output_tokens":1.5}}',
  '{"type":"item.completed","item":"nope"}',
  '{"type":"item.completed","item":{"type":"agent_message","text":42}}',
  '{"type":"item.started","item":{"type":"command_execution","command":{"a":1}}}',
  '{"type":"item.completed","item":{"type":"file_change","changes":"all of them"}}',
  '{"type":"item.completed","item":{"type":"mcp_tool_call","result":{"content":[1,null,{"text":5}]}}}',
  '{"type":"turn.failed","error":"boom"}',
  '{"type":"error","message":null}',
  '{"type":"turn.started"}',
  json({
    type: "item.completed",
    item: { id: "a", type: "agent_message", text: `${ESCAPES}${"é".repeat(10_000)}` },
  }),
  json({
    type: "item.started",
    item: { id: "b", type: "command_execution", command: `${ESCAPES}echo ${"y".repeat(5000)}` },
  }),
  json({
    type: "item.completed",
    item: {
      id: "b",
      type: "command_execution",
      command: "x",
      aggregated_output: `${ESCAPES}\n${"z".repeat(1e6)}`,
      exit_code: 0,
      status: "completed",
    },
  }),
  json({
    type: "item.started",
    item: {
      id: "c".repeat(1e4),
      type: "mcp_tool_call",
      server: `${ESCAPES}s`.repeat(500),
      tool: "t",
    },
  }),
  json({
    type: "item.completed",
    item: {
      id: "d",
      type: "file_change",
      changes: Array.from({ length: 1e4 }, () => ({ path: ESCAPES, kind: ESCAPES })),
    },
  }),
  json({
    type: "item.completed",
    item: { id: "e", type: "command_execution", command: ESCAPES, status: "declined" },
  }),
  json({ type: "error", message: `Reconnecting... 99999999999/5 (${ESCAPES}${"r".repeat(1e5)})` }),
  json({ type: "turn.failed", error: { message: `${ESCAPES}${"w".repeat(1e5)}` } }),
];

/** Gemini CLI's kinds of lines, likewise. */
const GEMINI: readonly string[] = [
  '{"type":"init","session_id":"-rf","model":{"x":1}}',
  '{"type":"init","session_id":42}',
  '{"type":"message","role":"assistant","content":["not","text"]}',
  '{"type":"tool_use","tool_name":7,"parameters":[1,2]}',
  '{"type":"tool_result","status":{"ok":true},"error":"x"}',
  '{"type":"result","status":"success","stats":{"input_tokens":-1,"output_tokens":"9"}}',
  '{"type":"result","status":"success","stats":[1]}',
  json({ type: "init", session_id: "s-1", model: `${ESCAPES}${"m".repeat(10_000)}` }),
  json({
    type: "message",
    role: "assistant",
    content: `${ESCAPES}${"漢字".repeat(5_000)}`,
    delta: true,
  }),
  json({
    type: "tool_use",
    tool_name: `${ESCAPES}tool`.repeat(100),
    tool_id: "t".repeat(10_000),
    parameters: { command: `${ESCAPES}echo ${"a".repeat(100_000)}` },
  }),
  json({ type: "tool_result", tool_id: "t", status: "success", output: `${ESCAPES}\nline 2` }),
  json({
    type: "tool_result",
    tool_id: ESCAPES,
    status: "error",
    error: { message: `${ESCAPES}${"f".repeat(1e5)}` },
  }),
  json({ type: "error", severity: "error", message: `${ESCAPES}${"x".repeat(1e5)}` }),
  json({
    type: "result",
    status: "error",
    error: { type: "x", message: `${ESCAPES}${"e".repeat(100_000)}` },
  }),
];

/** Every hostile line, for every reader. */
export const HOSTILE_LINES: readonly string[] = [
  ...NOT_OBJECTS,
  ...BLANK,
  ...ANY_AGENT,
  ...CLAUDE,
  ...CODEX,
  ...GEMINI,
];
