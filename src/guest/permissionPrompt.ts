// How the runner offers Claude Code its permission prompt tool for `approve: "prompt"`: an MCP
// server on stdio (permissionTool.js, run by the same Node as the runner) that asks the host
// over its own connection to the channel socket.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { PermissionPromptTool } from "../agents/index.js";

/** The MCP server's name and its one tool; Claude Code calls it `mcp__warden__approve`. */
export const PERMISSION_SERVER = "warden";
export const PERMISSION_TOOL = "approve";

/** The tool's option that names the channel socket. */
export const PERMISSION_SOCKET_FLAG = "--socket";

/**
 * The built tool beside this module. Under tsx (this module is the .ts source) the tool is the
 * one `npm run build` made, since Node alone cannot run the source.
 */
export function permissionToolPath(moduleUrl: string = import.meta.url): string {
  const beside = fileURLToPath(new URL("permissionTool.js", moduleUrl));
  if (existsSync(beside) || !moduleUrl.endsWith(".ts")) return beside;
  return fileURLToPath(new URL("../../dist/guest/permissionTool.js", moduleUrl));
}

export interface PermissionPromptPlan {
  /** The Node that runs the tool: the runner's own. */
  readonly node: string;
  /** permissionTool.js. */
  readonly script: string;
  /** The channel socket the tool connects to. */
  readonly socket: string;
}

/** The MCP config and tool name for Claude Code's --mcp-config and --permission-prompt-tool. Pure. */
export function permissionPromptTool(plan: PermissionPromptPlan): PermissionPromptTool {
  const server = {
    type: "stdio",
    command: plan.node,
    args: [plan.script, PERMISSION_SOCKET_FLAG, plan.socket],
  };
  return {
    mcpConfig: JSON.stringify({ mcpServers: { [PERMISSION_SERVER]: server } }),
    tool: `mcp__${PERMISSION_SERVER}__${PERMISSION_TOOL}`,
  };
}
