// Making a task: the repository and start commit resolved by the host's own git, every setting
// checked before anything is written, then one immutable spec in the store.
import { parseAllowList } from "../egress/index.js";
import type { AgentName } from "../protocol/index.js";
import type { DeadlineInput, Tasks, TaskSummary } from "../store/index.js";
import { checkEnvNames } from "./agentVariables.js";
import { hostSettings, type HostSettingsInput, type SandboxChoice } from "./hostSettings.js";
import { resolveStart, type TaskStart } from "./resolveStart.js";

export interface CreateTaskInput {
  /** The repository (a path on the host). */
  repo: string;
  /** The commit, branch or tag to start from (default HEAD). */
  from?: string;
  prompt: string;
  agent: AgentName;
  /** The `command` agent's argv. */
  command?: string[];
  model?: string;
  maxTurns?: number;
  maxBudgetUSD?: number;
  timeoutSeconds?: number;
  gitName?: string;
  gitEmail?: string;
  /** Default bwrap; `none` only when the user asks for it. */
  sandbox?: SandboxChoice;
  /** --allow entries and --preset names for the egress proxy. */
  allow?: string[];
  presets?: string[];
  /** --env names; their values are read when the task runs, never stored. */
  envNames?: string[];
  /** A duration ("2h") or a time; default 1 h. */
  deadline?: DeadlineInput;
  limits?: { memoryBytes?: number; processes?: number };
  labels?: Record<string, string>;
}

export interface CreatedTask {
  summary: TaskSummary;
  start: TaskStart;
}

/** The agent's settings from the input, with only the fields that were given. */
function agentSettings(input: CreateTaskInput): Record<string, unknown> {
  const settings: Record<string, unknown> = { agent: input.agent };
  const optional = {
    command: input.command,
    model: input.model,
    maxTurns: input.maxTurns,
    maxBudgetUSD: input.maxBudgetUSD,
    timeoutSeconds: input.timeoutSeconds,
    gitName: input.gitName,
    gitEmail: input.gitEmail,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) settings[key] = value;
  }
  return settings;
}

/**
 * Checks the settings, the allow list and the --env names, resolves the start commit (refusing
 * a shallow repository), and writes the task's spec. Nothing is written when a check fails.
 */
export async function createTask(tasks: Tasks, input: CreateTaskInput): Promise<CreatedTask> {
  const allow = input.allow ?? [];
  const presets = input.presets ?? [];
  parseAllowList(allow, presets);
  const envNames = checkEnvNames(input.envNames ?? []);
  const start = await resolveStart(input.repo, input.from);
  const settings: HostSettingsInput = {
    guest: agentSettings(input),
    sandbox: input.sandbox ?? "bwrap",
    allow,
    presets,
    envNames,
    gitDir: start.gitDir,
    objectFormat: start.objectFormat,
    ...(input.limits === undefined ? {} : { limits: input.limits }),
  };
  const summary = await tasks.create({
    prompt: input.prompt,
    repo: start.repo,
    base: start.base,
    settings: hostSettings(settings),
    ...(input.deadline === undefined ? {} : { deadline: input.deadline }),
    ...(input.labels === undefined ? {} : { labels: input.labels }),
  });
  return { summary, start };
}
