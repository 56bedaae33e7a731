// The task's MCP servers and skills from --mcp-config and --skills, or from the config files'
// `mcp` and `skills` where no flag gives them: a flag wins over the files, as every flag does.
import { resolve } from "node:path";
import type { ConfigValues } from "../config/index.js";
import { checkMcpServers, readMcpConfigs, type CreateTaskInput } from "../host/index.js";

export async function taskMcpInput(
  flags: { mcpConfig?: string[]; skills?: string },
  config: ConfigValues,
): Promise<Pick<CreateTaskInput, "mcpServers" | "skillsDir">> {
  const input: Pick<CreateTaskInput, "mcpServers" | "skillsDir"> = {};
  if (flags.mcpConfig !== undefined) input.mcpServers = await readMcpConfigs(flags.mcpConfig);
  else if (config.mcp !== undefined) {
    input.mcpServers = checkMcpServers(config.mcp, "the config's mcp");
  }
  const skills = flags.skills ?? config.skills;
  if (skills !== undefined) input.skillsDir = resolve(skills);
  return input;
}
