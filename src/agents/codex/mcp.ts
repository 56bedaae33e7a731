// The task's MCP servers in Codex's config.toml, as `[mcp_servers.NAME]` tables: a stdio
// server's command, args and env; an http server's url and http_headers. Codex reaches servers
// over stdio or streamable HTTP only, so an sse server is refused when the task is made.
import type { McpServers } from "../../protocol/index.js";
import { refuse } from "../launchChecks.js";

/** Where Codex finds its user's skills, under CODEX_HOME. */
export const CODEX_SKILLS_DIR = "skills";

/** A TOML basic string or quoted key: JSON's escapes are TOML's. */
function toml(value: string): string {
  return JSON.stringify(value);
}

function inlineTable(map: Readonly<Record<string, string>>): string {
  const entries = Object.entries(map).map(([key, value]) => `${toml(key)} = ${toml(value)}`);
  return `{ ${entries.join(", ")} }`;
}

/** The servers as TOML tables, one after another; empty text for none. Pure. */
export function codexMcpToml(servers: McpServers | undefined): string {
  const tables: string[] = [];
  for (const [name, server] of Object.entries(servers ?? {})) {
    // The settings allow only letters, digits, - and _ in a name: a bare key, quoted anyway.
    const lines = [`[mcp_servers.${toml(name)}]`];
    if ("url" in server) {
      if (server.type === "sse") {
        refuse("codex", `the MCP server ${name} is an sse server`, "give Codex an http server");
      }
      lines.push(`url = ${toml(server.url)}`);
      if (server.headers !== undefined) lines.push(`http_headers = ${inlineTable(server.headers)}`);
    } else {
      lines.push(`command = ${toml(server.command)}`);
      lines.push(`args = [${(server.args ?? []).map(toml).join(", ")}]`);
      if (server.env !== undefined) lines.push(`env = ${inlineTable(server.env)}`);
    }
    tables.push(lines.join("\n"));
  }
  return tables.length === 0 ? "" : `\n${tables.join("\n\n")}\n`;
}
