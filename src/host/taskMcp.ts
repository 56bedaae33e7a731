// What a task's MCP servers and skills add to its settings when it is made: the servers checked
// against the agent and the allow list, the skills directory walked and checked, its names in the
// agent's settings and its real path in the host's.
import { definedFields } from "../lang/index.js";
import type { AgentName, McpServers } from "../protocol/index.js";
import { AGENTS_WITH_MCP, checkMcpForTask, checkMcpServers } from "./mcpConfig.js";
import { McpNotTakenError } from "./mcpErrors.js";
import { planSkills } from "./skillsDir.js";

export interface TaskMcpInput {
  agent: AgentName;
  mcpServers?: McpServers;
  skillsDir?: string;
}

export interface TaskMcpSettings {
  /** The agent's settings' `mcpServers` and `skills`, where the task has them. */
  guest: { mcpServers?: McpServers; skills?: string[] };
  skillsDir?: string;
}

/** Checks the task's servers and skills; nothing is written. */
export async function taskMcpSettings(
  input: TaskMcpInput,
  allow: readonly string[],
  presets: readonly string[],
): Promise<TaskMcpSettings> {
  const servers = checkMcpServers(input.mcpServers ?? {}, "the task's MCP servers");
  checkMcpForTask(servers, { agent: input.agent, allow, presets });
  if (input.skillsDir !== undefined && !AGENTS_WITH_MCP.has(input.agent)) {
    throw new McpNotTakenError(`the ${input.agent} agent takes no skills`);
  }
  const plan = input.skillsDir === undefined ? undefined : await planSkills(input.skillsDir);
  return definedFields({
    guest: definedFields({
      mcpServers: Object.keys(servers).length === 0 ? undefined : servers,
      skills: plan === undefined ? undefined : [...plan.names],
    }),
    skillsDir: plan?.root,
  });
}
