// A permission prompt tool for Claude Code's `--permission-prompt-tool`: a minimal MCP server on
// stdio (newline-delimited JSON-RPC) with one tool, `approve`, that answers every request with
// the decision in PERMISSION_DECISION ("allow" or "deny"). It stands in for the runner's own
// tool, which asks the host, so the tests can prove the adapter's options reach a real tool.
import process from "node:process";
import { createInterface } from "node:readline";

const decision = process.env.PERMISSION_DECISION === "allow" ? "allow" : "deny";

function reply(id, result) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);
}

const tool = {
  name: "approve",
  description: "Decides whether a tool call may run.",
  inputSchema: {
    type: "object",
    properties: {
      tool_name: { type: "string" },
      input: { type: "object" },
      tool_use_id: { type: "string" },
    },
    required: ["tool_name", "input"],
  },
};

for await (const line of createInterface({ input: process.stdin })) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    continue;
  }
  if (message.id === undefined) continue;
  switch (message.method) {
    case "initialize":
      reply(message.id, {
        protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "warden-test-permissions", version: "1.0.0" },
      });
      break;
    case "tools/list":
      reply(message.id, { tools: [tool] });
      break;
    case "tools/call": {
      const input = message.params?.arguments?.input ?? {};
      const answer =
        decision === "allow"
          ? { behavior: "allow", updatedInput: input }
          : { behavior: "deny", message: "denied by policy" };
      reply(message.id, { content: [{ type: "text", text: JSON.stringify(answer) }] });
      break;
    }
    default:
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no such method" } })}\n`,
      );
  }
}
