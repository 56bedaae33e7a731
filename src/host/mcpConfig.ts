// A task's MCP servers: --mcp-config files in Claude Code's `{"mcpServers": {...}}` shape (or
// the config file's `mcp`), read on the host, each bounded and checked, merged into one set by
// name; then the set checked against the task: an agent that takes servers, and every http or
// sse server's host on the allow list, since the agent reaches it through the proxy like any
// other host.
import { open } from "node:fs/promises";
import { z } from "zod";
import { allowsTarget, parseAllowList } from "../egress/index.js";
import { errorMessage } from "../lang/index.js";
import {
  cleanLine,
  firstIssue,
  MCP_LIMITS,
  mcpServersSchema,
  RESERVED_MCP_SERVER_NAMES,
  remoteUrl,
  type AgentName,
  type McpServers,
} from "../protocol/index.js";
import { HOST_LIMITS } from "./limits.js";
import {
  BadMcpConfigError,
  McpHostNotAllowedError,
  McpNotTakenError,
  McpServerNameError,
} from "./mcpErrors.js";

/** The agents that take MCP servers (the command agent is a program of the user's own). */
export const AGENTS_WITH_MCP: ReadonlySet<AgentName> = new Set(["claude", "codex", "gemini"]);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The file's bytes, refusing what is no regular file or is over the bound before reading it. */
async function readConfigBytes(path: string): Promise<Buffer> {
  const shown = cleanLine(path);
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new BadMcpConfigError(`cannot read the MCP config ${shown}: ${errorMessage(error)}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new BadMcpConfigError(`the MCP config ${shown} is not a file`);
    const max = HOST_LIMITS.mcpConfigFileBytes;
    if (stat.size > max) {
      throw new BadMcpConfigError(
        `the MCP config ${shown} is ${stat.size} bytes, over the limit of ${max}`,
      );
    }
    const buffer = Buffer.alloc(max + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > max) {
      throw new BadMcpConfigError(`the MCP config ${shown} is over the limit of ${max} bytes`);
    }
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The servers of one file's text. Names are looked at before the servers' shape, so a server
 * that takes warden's name is refused as such. Pure.
 */
export function parseMcpConfig(bytes: Uint8Array, file: string): McpServers {
  const shown = cleanLine(file);
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch (error) {
    throw new BadMcpConfigError(`the MCP config ${shown} is not JSON: ${errorMessage(error)}`);
  }
  const top = z.strictObject({ mcpServers: z.record(z.string(), z.unknown()) }).safeParse(value);
  if (!top.success) {
    throw new BadMcpConfigError(
      `the MCP config ${shown} is not {"mcpServers": {...}}: ${firstIssue(top.error, "file")}`,
    );
  }
  return checkMcpServers(top.data.mcpServers, shown);
}

/** A set of servers from a file or a config, checked by the settings' schema. */
export function checkMcpServers(servers: Record<string, unknown>, where: string): McpServers {
  for (const name of Object.keys(servers)) refuseReservedName(name, where);
  const count = Object.keys(servers).length;
  if (count > MCP_LIMITS.servers) {
    throw new BadMcpConfigError(
      `${where} names ${count} MCP servers, more than the limit of ${MCP_LIMITS.servers}`,
    );
  }
  const parsed = mcpServersSchema().safeParse(servers);
  if (!parsed.success) {
    throw new BadMcpConfigError(
      `${where} has a server warden cannot use: ${firstIssue(parsed.error, "mcpServers")}`,
    );
  }
  return parsed.data;
}

function refuseReservedName(name: string, where: string): void {
  if (RESERVED_MCP_SERVER_NAMES.includes(name.toLowerCase())) {
    throw new McpServerNameError(
      `${where} names an MCP server ${JSON.stringify(cleanLine(name))}, which is warden's own permission-prompt server`,
    );
  }
}

/** The servers of several sets in one, refusing a name given twice. Pure. */
export function mergeMcpServers(
  sets: readonly { where: string; servers: McpServers }[],
): McpServers {
  const merged: McpServers = {};
  const from = new Map<string, string>();
  for (const { where, servers } of sets) {
    for (const [name, server] of Object.entries(servers)) {
      const first = from.get(name);
      if (first !== undefined) {
        throw new McpServerNameError(
          `the MCP server ${JSON.stringify(cleanLine(name))} is in both ${first} and ${where}`,
        );
      }
      from.set(name, where);
      merged[name] = server;
    }
  }
  return checkMcpServers(merged, "the MCP configs together");
}

/** Reads and merges --mcp-config files. */
export async function readMcpConfigs(paths: readonly string[]): Promise<McpServers> {
  if (paths.length > HOST_LIMITS.mcpConfigFiles) {
    throw new BadMcpConfigError(
      `${paths.length} --mcp-config files were given, more than the limit of ${HOST_LIMITS.mcpConfigFiles}`,
    );
  }
  const sets = [];
  for (const path of paths) {
    sets.push({
      where: cleanLine(path),
      servers: parseMcpConfig(await readConfigBytes(path), path),
    });
  }
  return mergeMcpServers(sets);
}

/**
 * Refuses servers the task cannot use: any for an agent that takes none, and an http or sse
 * server whose host and port the allow list (--allow, --preset) does not name. Pure.
 */
export function checkMcpForTask(
  servers: McpServers,
  task: { agent: AgentName; allow: readonly string[]; presets: readonly string[] },
): void {
  if (Object.keys(servers).length === 0) return;
  if (!AGENTS_WITH_MCP.has(task.agent)) {
    throw new McpNotTakenError(`the ${task.agent} agent takes no MCP servers`);
  }
  const list = parseAllowList(task.allow, task.presets);
  for (const [name, server] of Object.entries(servers)) {
    if (!("url" in server)) continue;
    if (task.agent === "codex" && server.type === "sse") {
      throw new BadMcpConfigError(
        `the MCP server ${JSON.stringify(cleanLine(name))} is an sse server, which Codex CLI cannot reach`,
        { hint: "give Codex the server's streamable HTTP endpoint as an http server" },
      );
    }
    const endpoint = remoteUrl(server.url);
    if (endpoint === undefined) continue;
    if (!server.url.toLowerCase().startsWith("https:")) {
      // Agents send a plain http:// request to the proxy as it is (no CONNECT), and warden's
      // proxy forwards only tunnels: such a server could never answer.
      throw new BadMcpConfigError(
        `the MCP server ${JSON.stringify(cleanLine(name))} is at a plain http:// URL, and the sandbox reaches the network only through warden's proxy, which forwards https alone`,
        { hint: "give the server's https:// URL" },
      );
    }
    if (allowsTarget(list, endpoint.host, endpoint.port)) continue;
    const entry = endpoint.host.includes(":")
      ? `[${endpoint.host}]:${endpoint.port}`
      : `${endpoint.host}:${endpoint.port}`;
    throw new McpHostNotAllowedError(
      `the MCP server ${JSON.stringify(cleanLine(name))} is at ${cleanLine(entry)}, which the allow list does not let the agent reach`,
      { hint: `allow it with --allow ${cleanLine(entry)} (or in your own config's allow list)` },
    );
  }
}
