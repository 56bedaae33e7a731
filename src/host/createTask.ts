// Making a task: the repository and start commit resolved by the host's own git, every setting
// checked before anything is written, then one immutable spec in the store.
import { parseAllowList } from "../egress/index.js";
import { definedFields, settled, traceFromEnv, unwrap } from "../lang/index.js";
import type { AgentName, McpServers, Settings } from "../protocol/index.js";
import { sandboxBackend, type SandboxBackendOptions, type SandboxName } from "../sandbox/index.js";
import type { DeadlineInput, TaskStore, TaskSummary } from "../store/index.js";
import { checkEnvNames } from "./agentVariables.js";
import { hostSettings, type HostSettingsInput, type SandboxChoice } from "./hostSettings.js";
import { BadTaskOptionError } from "./errors.js";
import { HOST_LIMITS } from "./limits.js";
import { resolveStart, type TaskStart } from "./resolveStart.js";
import { resolveGitIdentity } from "./gitIdentity.js";
import { parseToolRules } from "./channel/index.js";
import { checkBeforeCreate, type CreateChecks } from "./checkBeforeCreate.js";
import { checkSetup, type SetupInput } from "./setupPlan.js";
import { resolveWorkspaces, type WorkspaceBinding } from "./workspaceBindings.js";
import { taskMcpSettings } from "./taskMcp.js";

export interface CreateTaskInput {
  /** The repository (a path on the host). */
  repo: string;
  /** The commit, branch or tag to start from (default HEAD). */
  from?: string;
  /** Text, or bytes that must be UTF-8 without NUL (the store refuses them otherwise). */
  prompt: string | Uint8Array;
  agent: AgentName;
  /** The `command` agent's argv. */
  command?: string[];
  model?: string;
  maxTurns?: number;
  maxBudgetUSD?: number;
  timeoutSeconds?: number;
  /** Who the agent's commits are by; absent: what git's config says in the repository. */
  gitName?: string;
  gitEmail?: string;
  /** How permission prompts are answered (agents that ask): always, never, or prompt a person. */
  approve?: NonNullable<Settings["approve"]>;
  /** Rules that allow or deny tool calls (`Bash(git *)`, `Write`): see channel/toolRules.ts. */
  allowTools?: string[];
  denyTools?: string[];
  /** How long a prompt waits for `warden approve` before it is denied (default 10 min). */
  approveTimeoutSeconds?: number;
  /** Text added to the agent's system prompt. */
  appendSystemPrompt?: string;
  /** The agent's program on the host, instead of the one found on PATH. */
  agentProgram?: string;
  /** Whether `warden exec`, `shell` and `cp` may step inside while it runs (--allow-exec). */
  allowExec?: boolean;
  /** Whether the runner keeps serving after the agent ends (--debug; implies allowExec). */
  debug?: boolean;
  /** Default bwrap; `none` only when the user asks for it. */
  sandbox?: SandboxChoice;
  /** --allow entries and --preset names for the egress proxy. */
  allow?: string[];
  presets?: string[];
  /** --env names; their values are read when the task runs, never stored. */
  envNames?: string[];
  /** A duration ("2h") or a time; default 1 h. */
  deadline?: DeadlineInput;
  limits?: { memoryBytes?: number; processes?: number; diskBytes?: number };
  labels?: Record<string, string>;
  /** The setup before the agent: --setup, --setup-goal and the rest (setupPlan.ts). */
  setup?: SetupInput;
  /** Repositories bound beside the task's own (--workspace), in binding order. */
  workspaces?: WorkspaceBinding[];
  /** MCP servers for the agent, by name (read from --mcp-config files or the config). */
  mcpServers?: McpServers;
  /** A directory of skills on the host (--skills), copied into the share when the task runs. */
  skillsDir?: string;
  /** In a fleet, the labels a worker must have to run it (--require). */
  require?: Record<string, string>;
}

/** Where a task is written: its id, and what must exist before its spec does. */
export interface CreatePlacement {
  /** The id to create it under (a fleet's client names it before it uploads the base). */
  id?: string;
  /** Runs after every check and before the spec is written, with the resolved start. */
  beforeWrite?: (start: TaskStart) => Promise<void>;
}

export interface CreatedTask {
  summary: TaskSummary;
  start: TaskStart;
}

/**
 * Agents that apply tool rules themselves, before any prompt reaches the host: their settings
 * get the same rules (Claude Code's --allowedTools and --disallowedTools), so a deny rule holds
 * even where the agent asks nobody (approve `always`).
 */
const AGENTS_WITH_TOOL_RULES: ReadonlySet<AgentName> = new Set(["claude"]);

/** The agent's settings from the input, with only the fields that were given. */
function agentSettings(input: CreateTaskInput): Record<string, unknown> {
  const rules = AGENTS_WITH_TOOL_RULES.has(input.agent);
  return definedFields({
    agent: input.agent,
    command: input.command,
    model: input.model,
    maxTurns: input.maxTurns,
    maxBudgetUSD: input.maxBudgetUSD,
    timeoutSeconds: input.timeoutSeconds,
    gitName: input.gitName,
    gitEmail: input.gitEmail,
    approve: input.approve,
    appendSystemPrompt: input.appendSystemPrompt,
    agentProgram: input.agentProgram,
    allowExec: input.allowExec === true || input.debug === true ? true : undefined,
    debug: input.debug === true ? true : undefined,
    allowedTools: rules && (input.allowTools ?? []).length > 0 ? input.allowTools : undefined,
    disallowedTools: rules && (input.denyTools ?? []).length > 0 ? input.denyTools : undefined,
  });
}

/**
 * Checks the settings, the allow list and the --env names, resolves the start commit (refusing
 * a shallow repository), and writes the task's spec. With `checks`, also what running it needs
 * of this host (checkBeforeCreate). Nothing is written when a check fails.
 */
export async function createTask(
  tasks: Pick<TaskStore, "create">,
  input: CreateTaskInput,
  checks?: CreateChecks,
  placement: CreatePlacement = {},
): Promise<CreatedTask> {
  // Only a caller that says which environment the task runs in can ask for a trace.
  const trace = traceFromEnv(checks?.env ?? {});
  trace.sinceStart("process start to createTask");
  const creating = trace.start("createTask");
  const allow = input.allow ?? [];
  const presets = input.presets ?? [];
  parseAllowList(allow, presets);
  const envNames = checkEnvNames(input.envNames ?? []);
  const approval = approvalSettings(input);
  const setup = checkSetup(input.setup ?? {}, input.agent);
  const mcp = await taskMcpSettings(input, allow, presets);
  // The sandbox's check (a trial sandbox) runs while git resolves the start; checkBeforeCreate
  // then takes its outcome from the memo.
  warmSandboxCheck(input.sandbox ?? "bwrap", checks?.sandboxOptions);
  // git's identity is read while the start is resolved: any directory of the repository reads
  // the same config. A repository that is not one is the start's to report.
  const reading = settled(trace.around("git identity", resolveGitIdentity(input.repo, input)));
  const start = await trace.around("resolve the start", resolveStart(input.repo, input.from));
  const identity = unwrap(await reading);
  const workspaces =
    input.workspaces === undefined || input.workspaces.length === 0
      ? undefined
      : await trace.around("resolve the workspaces", resolveWorkspaces(input.workspaces, start));
  const settings: HostSettingsInput = definedFields({
    guest: {
      ...agentSettings({ ...input, ...identity }),
      ...definedFields({ workdir: start.workdir }),
      ...mcp.guest,
    },
    sandbox: input.sandbox ?? "bwrap",
    allow,
    presets,
    envNames,
    gitDir: start.gitDir,
    objectFormat: start.objectFormat,
    limits: input.limits,
    approval,
    setup,
    workspaces,
    skillsDir: mcp.skillsDir,
    require: input.require,
  });
  const stored = hostSettings(settings);
  const beforeWrite = async (): Promise<void> => {
    if (checks !== undefined) {
      await trace.around("checks before create", checkBeforeCreate(stored, start, checks));
    }
    await placement.beforeWrite?.(start);
  };
  const summary = await tasks.create(
    {
      prompt: input.prompt,
      repo: start.repo,
      base: start.base,
      settings: stored,
      deadline: input.deadline,
      labels: input.labels,
    },
    definedFields({ id: placement.id, beforeWrite }),
  );
  creating();
  return { summary, start };
}

/** Starts the sandbox's check in the memo, if there is one; its outcome is read later. */
function warmSandboxCheck(name: SandboxName, options: SandboxBackendOptions | undefined): void {
  if (options?.checks === undefined) return;
  options.checks.check(sandboxBackend(name, options)).catch(() => undefined);
}

/** The host's approval settings from the input, checked; undefined when none were given. */
function approvalSettings(input: CreateTaskInput): HostSettingsInput["approval"] {
  const allow = input.allowTools ?? [];
  const deny = input.denyTools ?? [];
  parseToolRules(allow, "--allow-tool");
  parseToolRules(deny, "--deny-tool");
  const timeout = input.approveTimeoutSeconds;
  if (timeout !== undefined) {
    const max = HOST_LIMITS.maxApprovalTimeoutMs / 1000;
    if (!Number.isSafeInteger(timeout) || timeout < 1 || timeout > max) {
      throw new BadTaskOptionError(
        `the approval timeout ${timeout} s is not between 1 s and ${max} s`,
        { hint: "give --approve-timeout a duration such as 5m" },
      );
    }
  }
  if (allow.length === 0 && deny.length === 0 && timeout === undefined) return undefined;
  if (!AGENTS_WITH_TOOL_RULES.has(input.agent)) {
    throw new BadTaskOptionError(
      `the ${input.agent} agent asks warden no permissions, so it takes no tool rules or approval timeout`,
      { hint: "drop --allow-tool, --deny-tool and --approve-timeout, or run the claude agent" },
    );
  }
  return definedFields({ allow, deny, timeoutSeconds: timeout });
}
