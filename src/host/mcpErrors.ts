// The refusals of a task's MCP servers and skills: one class per kind, a stable code, a hint.
import { HostError } from "./errors.js";

/** An --mcp-config file (or the config's `mcp`) that cannot be read, is too big or is no MCP config. */
export class BadMcpConfigError extends HostError {
  static override readonly hint =
    'give a JSON file such as {"mcpServers": {"NAME": {"command": "...", "args": []}}}';
  readonly code: string = "BAD_MCP_CONFIG";
  readonly exitClass = "usage";
}

/** Two servers of one name, or a server that takes warden's own name. */
export class McpServerNameError extends HostError {
  static override readonly hint = "give each server a name of its own, other than warden";
  readonly code: string = "MCP_SERVER_NAME";
  readonly exitClass = "usage";
}

/** An http or sse server whose host the task's allow list does not let the agent reach. */
export class McpHostNotAllowedError extends HostError {
  readonly code: string = "MCP_HOST_NOT_ALLOWED";
  readonly exitClass = "usage";
}

/** MCP servers or skills for an agent that takes none. */
export class McpNotTakenError extends HostError {
  static override readonly hint = "drop --mcp-config and --skills, or run claude, codex or gemini";
  readonly code: string = "MCP_NOT_TAKEN";
  readonly exitClass = "usage";
}

/** A --skills directory that is not a set of skills within the bounds. */
export class BadSkillsError extends HostError {
  static override readonly hint =
    "give a directory with one folder per skill, each with its SKILL.md, and nothing else";
  readonly code: string = "BAD_SKILLS";
  readonly exitClass = "usage";
}

/** A link in a --skills directory: it could lead the copy anywhere on this machine. */
export class SkillsLinkError extends HostError {
  static override readonly hint = "replace the link with the file or folder itself";
  readonly code: string = "SKILLS_LINK";
  readonly exitClass = "usage";
}
