// A small MCP server over streamable HTTP, with TLS, (JSON answers, no event stream) with one tool, `ping`,
// that answers `pong: <text>` and counts its calls: an http server a task's agent reaches
// through warden's egress proxy.
import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer } from "node:https";

export interface McpHttpServer {
  readonly port: number;
  /** The texts `ping` was called with, in order. */
  readonly calls: readonly string[];
  /** Every request's method and path, for a test that wants to see what came. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

const tool = {
  name: "ping",
  description: "Answers pong.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
};

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function answer(res: ServerResponse, id: unknown, result: unknown): void {
  const text = JSON.stringify({ jsonrpc: "2.0", id, result });
  res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "warden-test" });
  res.end(text);
}

/** Starts the server with TLS (`key`, `cert` in PEM) on `host` and a free port. */
export async function startMcpHttpServer(
  host: string,
  tls: { key: string; cert: string },
): Promise<McpHttpServer> {
  const calls: string[] = [];
  const requests: string[] = [];
  const server = createServer(tls, (req, res) => {
    requests.push(`${req.method ?? "?"} ${req.url ?? "?"}`);
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    void body(req).then((text) => {
      let message: { id?: unknown; method?: string; params?: Record<string, unknown> };
      // Anything but the three requests the test needs gets an empty result.
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      switch (message.method) {
        case "initialize":
          answer(res, message.id, {
            protocolVersion: message.params?.protocolVersion ?? "2025-06-18",
            capabilities: { tools: {} },
            serverInfo: { name: "warden-test-http", version: "1.0.0" },
          });
          return;
        case "tools/list":
          answer(res, message.id, { tools: [tool] });
          return;
        case "tools/call": {
          const args = (message.params?.arguments ?? {}) as { text?: unknown };
          const said = typeof args.text === "string" ? args.text : "";
          calls.push(said);
          answer(res, message.id, { content: [{ type: "text", text: `pong: ${said}` }] });
          return;
        }
        case undefined:
        default:
          answer(res, message.id, {});
      }
    });
  });
  server.listen(0, host);
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    port,
    calls,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
