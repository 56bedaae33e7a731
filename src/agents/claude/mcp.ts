// The MCP servers Claude Code is given: the task's own servers and warden's permission-prompt
// server, in one `--mcp-config` file the runner writes into the task's home. `--strict-mcp-config`
// makes these the only servers: a repository's own .mcp.json (or a user's settings) is never
// loaded behind the task's back. A repository names its servers in .warden/config.yaml instead,
// where warden checks them like any others.
import { join } from "node:path";
import type { McpServers } from "../../protocol/index.js";
import type { AgentFile, AgentTask } from "../adapter.js";

/** The file the runner writes the servers to, in the task's home. */
export const CLAUDE_MCP_FILE = "mcp.json";

/** Claude Code's own directory (CLAUDE_CONFIG_DIR) in the task's home; skills are in it. */
export const CLAUDE_CONFIG_DIR = ".claude";

/** Where Claude Code finds its user's skills, under CLAUDE_CONFIG_DIR. */
export const CLAUDE_SKILLS_DIR = "skills";

export interface ClaudeMcp {
  /** The options that name the servers. */
  readonly args: readonly string[];
  /** The file that holds them, when the task has a home to write it in. */
  readonly file?: AgentFile;
}

/** The servers of the task and of warden's permission prompt, as one config. Pure. */
export function claudeMcpServers(task: AgentTask): McpServers {
  const servers: Record<string, unknown> = { ...(task.settings.mcpServers ?? {}) };
  if (task.permissionPromptTool !== undefined) {
    // warden's own config: the settings refuse a task's server of the same name.
    const own = JSON.parse(task.permissionPromptTool.mcpConfig) as { mcpServers: McpServers };
    Object.assign(servers, own.mcpServers);
  }
  return servers as McpServers;
}

/**
 * The options for the task's servers. Without servers of the task's own, the permission-prompt
 * server stays inline on the command line as it always was; with them, all go into one file.
 */
export function claudeMcp(task: AgentTask): ClaudeMcp {
  const strict = "--strict-mcp-config";
  const own = task.settings.mcpServers ?? {};
  if (Object.keys(own).length === 0) {
    return task.permissionPromptTool === undefined
      ? { args: [strict] }
      : { args: [`--mcp-config=${task.permissionPromptTool.mcpConfig}`, strict] };
  }
  const text = `${JSON.stringify({ mcpServers: claudeMcpServers(task) }, null, 2)}\n`;
  if (task.home === undefined) return { args: [`--mcp-config=${text}`, strict] };
  const path = join(task.home, CLAUDE_MCP_FILE);
  return { args: [`--mcp-config=${path}`, strict], file: { path, text } };
}
