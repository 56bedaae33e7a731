// Every agent's stream reader, as its adapter makes it, held to the one contract of
// streamContract.ts. Each agent says the few things the contract feeds it in its own lines.
import { adapterFor } from "../../src/agents/index.js";
import { AGENTS, type AgentName } from "../../src/protocol/index.js";
import { streamReaderContract, type StreamDialect } from "./streamContract.js";
import { capturedStreams } from "./streamKit.js";

const json = (value: unknown): string => JSON.stringify(value);

/** Claude Code: an assistant message's blocks; a denial by id; a result with its usage. */
const CLAUDE: StreamDialect = {
  says: (text) =>
    json({ type: "assistant", message: { id: "m", content: [{ type: "text", text }] } }),
  toolId: (id) => [
    json({
      type: "assistant",
      message: { id, content: [{ type: "tool_use", id, name: "Bash", input: { command: "ls" } }] },
    }),
    json({ type: "system", subtype: "permission_denied", tool_use_id: id, tool_name: "Bash" }),
  ],
  usage: (input, output) => [
    json({
      type: "result",
      is_error: false,
      usage: {
        input_tokens: input,
        cache_creation_input_tokens: input,
        cache_read_input_tokens: input,
        output_tokens: output,
      },
    }),
  ],
};

/** Codex CLI: items started and completed; a completed turn with its thread's usage. */
const CODEX: StreamDialect = {
  says: (text) => json({ type: "item.completed", item: { id: "i", type: "agent_message", text } }),
  toolId: (id) => [json({ type: "item.started", item: { id, type: "web_search", query: "q" } })],
  usage: (input, output) => [
    '{"type":"turn.started"}',
    json({
      type: "turn.completed",
      usage: { input_tokens: input, cached_input_tokens: input, output_tokens: output },
    }),
  ],
};

/** Gemini CLI: the model's text in pieces; tool calls and results by id; a result's stats. */
const GEMINI: StreamDialect = {
  says: (text) => json({ type: "message", role: "assistant", content: text, delta: true }),
  toolId: (id) => [
    json({ type: "tool_use", tool_name: "run_shell_command", tool_id: id, parameters: {} }),
  ],
  usage: (input, output) => [
    json({
      type: "result",
      status: "success",
      stats: { input_tokens: input, output_tokens: output },
    }),
  ],
};

/**
 * How each agent speaks. The command's output has no format warden knows; it is fed Claude
 * Code's lines, as a command that wraps an agent would write them.
 */
const DIALECTS: Readonly<Record<AgentName, StreamDialect>> = {
  claude: CLAUDE,
  codex: CODEX,
  gemini: GEMINI,
  command: CLAUDE,
};

/** An agent's own captured streams, its richest first; a command may write any of them. */
function goldenOf(agent: AgentName): [string, ...string[]] {
  const richest = { claude: "claude-run1", codex: "codex-exec-2", gemini: "gemini-stream-1" };
  const own = agent === "command" ? capturedStreams() : capturedStreams(agent);
  const first = agent === "command" ? richest.claude : richest[agent];
  return [first, ...own.filter((name) => name !== first)];
}

for (const agent of AGENTS) {
  streamReaderContract({
    agent,
    reader: () => adapterFor(agent).readStream(),
    dialect: DIALECTS[agent],
    golden: goldenOf(agent),
    reads: agent !== "command",
  });
}
