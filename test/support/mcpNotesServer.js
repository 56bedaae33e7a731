// A small MCP server on stdio (newline-delimited JSON-RPC) with one tool, `write_note`, that
// writes its `text` to note.txt in the server's working directory and answers `noted: <text>`.
// The tests give it to an agent as a task's own server, so both what the model is told and the
// tool's side effect can be seen.
import { writeFileSync } from "node:fs";
import process from "node:process";
import { createInterface } from "node:readline";

function send(message) {
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
}

const tool = {
  name: "write_note",
  description: "Writes a note to note.txt.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
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
      send({
        id: message.id,
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "warden-test-notes", version: "1.0.0" },
        },
      });
      break;
    case "tools/list":
      send({ id: message.id, result: { tools: [tool] } });
      break;
    case "tools/call": {
      const text = String(message.params?.arguments?.text ?? "");
      writeFileSync("note.txt", `${text}\n`);
      send({ id: message.id, result: { content: [{ type: "text", text: `noted: ${text}` }] } });
      break;
    }
    default:
      send({ id: message.id, error: { code: -32601, message: "no such method" } });
  }
}
