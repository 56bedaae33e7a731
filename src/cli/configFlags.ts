// The config files' defaults as the flags they stand for: a flag given on the command line wins,
// and a default the task's agent does not take is left out (a user's maxBudgetUsd must not make
// every command-agent run fail), where the same flag given by hand is refused.
import type { Config, ConfigKey, ConfigValues } from "../config/index.js";
import { agentTakes, cleanLine, type AgentField, type AgentName } from "../protocol/index.js";

/** The name of a field of the options of `run` and `create` (taskOptions.ts's TaskFlags). */
type FlagField = string;

/** Which flag each key of a config file stands for, and the setting an agent must take for it. */
const KEY_FLAGS: Partial<Record<ConfigKey, { flag: FlagField; needs?: AgentField }>> = {
  model: { flag: "model" },
  maxTurns: { flag: "maxTurns", needs: "maxTurns" },
  maxBudgetUsd: { flag: "maxBudgetUsd", needs: "maxBudgetUSD" },
  timeout: { flag: "timeout" },
  deadline: { flag: "deadline" },
  allow: { flag: "allow" },
  presets: { flag: "preset" },
  approve: { flag: "approve", needs: "approve" },
  allowTools: { flag: "allowTool", needs: "allowedTools" },
  denyTools: { flag: "denyTool", needs: "disallowedTools" },
  memory: { flag: "memory" },
  maxProcesses: { flag: "maxProcesses" },
  disk: { flag: "disk" },
  gitName: { flag: "gitName" },
  gitEmail: { flag: "gitEmail" },
  setup: { flag: "setup" },
  setupGoal: { flag: "setupGoal" },
  setupTimeout: { flag: "setupTimeout" },
  setupAllow: { flag: "setupAllow" },
  setupPresets: { flag: "setupPreset" },
  setupEnv: { flag: "setupEnv" },
  setupKey: { flag: "setupKey" },
  workspaces: { flag: "workspace" },
  allowExec: { flag: "allowExec" },
};

/** The flags, with the config's value for each flag not given that the agent takes. */
export function flagsWithConfig<Flags extends object>(
  flags: Flags,
  values: ConfigValues,
  agent: AgentName,
): Flags {
  const merged: Record<string, unknown> = { ...(flags as Record<string, unknown>) };
  for (const [key, { flag, needs }] of Object.entries(KEY_FLAGS) as [
    ConfigKey,
    { flag: FlagField; needs?: AgentField },
  ][]) {
    const value = values[key];
    if (value === undefined || merged[flag] !== undefined) continue;
    if (needs !== undefined && !agentTakes(agent, needs)) continue;
    // The flags hold text as typed (lists stay lists): the same parsing checks both.
    if (typeof value === "object" && !Array.isArray(value)) continue;
    merged[flag] = Array.isArray(value) ? [...value] : String(value);
  }
  return merged as Flags;
}

/** One line per key a repository's file set that only the user's file may set. */
export function ignoredKeyWarnings(config: Config): string[] {
  return config.ignored.map(
    ({ key, file }) =>
      `warden: warning: ${cleanLine(file)} sets ${key}, which only your own config may set; ignored\n`,
  );
}
