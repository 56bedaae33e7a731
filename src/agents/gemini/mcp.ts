// The task's MCP servers in Gemini's settings.json `mcpServers`: a stdio server's command, args
// and env; an sse server's `url`, an http (streamable) server's `httpUrl`, with their headers.
import type { McpServers } from "../../protocol/index.js";

/** Where Gemini finds its user's skills, under GEMINI_CLI_HOME. */
export const GEMINI_SKILLS_DIR = ".gemini/skills";

/** The servers as Gemini's settings name them. Pure. */
export function geminiMcpServers(servers: McpServers): Record<string, unknown> {
  const rendered: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(servers)) {
    if ("url" in server) {
      rendered[name] = {
        [server.type === "sse" ? "url" : "httpUrl"]: server.url,
        ...(server.headers === undefined ? {} : { headers: server.headers }),
      };
    } else {
      rendered[name] = {
        command: server.command,
        args: server.args ?? [],
        ...(server.env === undefined ? {} : { env: server.env }),
      };
    }
  }
  return rendered;
}
