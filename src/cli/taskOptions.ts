// The options `run` and `create` share, and how they become a task: the agent and its limits,
// the sandbox and its network gate, the repository, the deadline and the prompt.
import { resolve } from "node:path";
import { Option, type Command } from "commander";
import { parseWorkspaceBinding, type CreateTaskInput } from "../host/index.js";
import {
  AGENTS,
  agentTakes,
  type AgentField,
  type AgentName,
  type Settings,
} from "../protocol/index.js";
import { loadConfig } from "../config/index.js";
import { flagsWithConfig, ignoredKeyWarnings } from "./configFlags.js";
import { taskMcpInput } from "./mcpOptions.js";
import { collect } from "./context.js";
import { parseAmount, parseBytes, parseCount, parseSeconds } from "./parseValues.js";
import { UsageError } from "./cliErrors.js";
import { commandLineText, PROMPT_INPUT, readRegularFile, readStdinBytes } from "./readInput.js";
import { standardError } from "./standardStreams.js";

export interface TaskFlags {
  repo: string;
  from?: string;
  agent?: string;
  approve?: string;
  allowTool?: string[];
  denyTool?: string[];
  approveTimeout?: string;
  appendSystemPrompt?: string;
  agentProgram?: string;
  model?: string;
  maxTurns?: string;
  maxBudgetUsd?: string;
  gitName?: string;
  gitEmail?: string;
  timeout?: string;
  deadline?: string;
  sandbox: string;
  allow?: string[];
  preset?: string[];
  env?: string[];
  memory?: string;
  maxProcesses?: string;
  disk?: string;
  prompt?: string;
  promptFile?: string;
  json?: boolean;
  setup?: string[];
  setupGoal?: string;
  setupTimeout?: string;
  setupAllow?: string[];
  setupPreset?: string[];
  setupEnv?: string[];
  setupKey?: string[];
  workspace?: string[];
  mcpConfig?: string[];
  skills?: string;
  /** true from the flag; "true" or "false" from a config file (flags hold text as typed). */
  allowExec?: boolean | string;
  debug?: boolean;
}

export function addTaskOptions(command: Command): Command {
  return command
    .argument("[command...]", "for --agent command: the program and its arguments, after `--`")
    .option("--repo <path>", "the git repository to work on", ".")
    .option("--from <rev>", "the commit, branch or tag to start from (default HEAD)")
    .addOption(
      new Option(
        "--agent <name>",
        "the agent to run (default: claude; command when a command follows `--`)",
      ).choices([...AGENTS]),
    )
    .option(
      "--agent-program <path>",
      "the agent's program on this machine (default: found on PATH)",
    )
    .option("--model <name>", "the model the agent uses")
    .option("--max-turns <n>", "the most turns the agent may take (0: its default)")
    .option("--max-budget-usd <amount>", "the most the agent may spend, in US dollars")
    .option("--git-name <name>", "who the task's commits are by (default: user.name of the repo)")
    .option(
      "--git-email <email>",
      "the email of the task's commits (default: user.email of the repo)",
    )
    .addOption(
      new Option(
        "--approve <policy>",
        "the agent's permission prompts: always allow, never allow, or prompt a person (warden approve)",
      ).choices([...APPROVE_POLICIES]),
    )
    .option(
      "--allow-tool <rule>",
      "allow tool calls that match RULE without asking: Bash, 'Bash(git *)' (repeatable)",
      collect,
    )
    .option(
      "--deny-tool <rule>",
      "deny tool calls that match RULE, whatever the policy: Write, 'Bash(rm *)' (repeatable)",
      collect,
    )
    .option(
      "--approve-timeout <duration>",
      "how long a prompt waits for `warden approve` before it is denied (default 10m)",
    )
    .option("--append-system-prompt <text>", "text added to the agent's system prompt")
    .option("--timeout <duration>", "the agent's time limit: seconds, or 30m, 2h (0: none)")
    .option("--deadline <when>", "when the task must have ended: 2h, 3d, or a time (default 1h)")
    .addOption(
      new Option(
        "--sandbox <name>",
        "the isolation: bwrap, or none (NOT isolated; development only)",
      )
        .choices(["bwrap", "none"])
        .default("bwrap"),
    )
    .option(
      "--allow <host>",
      "let the agent reach HOST[:PORT] through the proxy (repeatable)",
      collect,
    )
    .option(
      "--preset <name>",
      "allow a preset list of hosts: npm, pypi, github... (repeatable)",
      collect,
    )
    .option(
      "--env <name>",
      "pass the variable NAME of this environment to the agent (repeatable)",
      collect,
    )
    .option(
      "--memory <size>",
      "the sandbox's memory bound, /tmp and home included, such as 4G (default 4G; 0 for none)",
    )
    .option(
      "--max-processes <n>",
      "the sandbox's bound on processes and threads (default 1024; 0 for none)",
    )
    .option(
      "--disk <size>",
      "the workspace's bound on the host's disk, such as 20G (default 8G; 0 for none)",
    )
    .option("--prompt <text>", "what the task is to do")
    .option("--prompt-file <file>", "read the prompt from FILE (- for stdin)")
    .option("--json", "print one JSON object instead of text")
    .option(
      "--setup <command>",
      "run COMMAND by sh -c in the workspace before the agent; the first that fails fails the task (repeatable)",
      collect,
    )
    .option(
      "--setup-goal <text>",
      "a prompt the agent runs on its own before the task's, to prepare the workspace",
    )
    .option("--setup-timeout <duration>", "the setup's time limit (default 10m)")
    .option(
      "--setup-allow <host>",
      "let setup alone reach HOST[:PORT] through the proxy (repeatable)",
      collect,
    )
    .option(
      "--setup-preset <name>",
      "let setup alone reach a preset list of hosts (repeatable)",
      collect,
    )
    .option(
      "--setup-env <name>",
      "give the variable NAME of this environment to setup, never to the agent (repeatable)",
      collect,
    )
    .option(
      "--setup-key <path>",
      "a path or glob the setup cache is keyed by, at the base (default: the lockfiles; repeatable)",
      collect,
    )
    .option(
      "--workspace <binding>",
      "bind another repository as NAME=PATH[@REV], cloned beside the task's own and handed back as its own branch (repeatable)",
      collect,
    )
    .option(
      "--mcp-config <file>",
      'give the agent the MCP servers of FILE, {"mcpServers": {...}} as Claude Code takes it (repeatable)',
      collect,
    )
    .option(
      "--skills <dir>",
      "put the skills of DIR (a folder with SKILL.md each) where the agent looks for skills",
    )
    .option(
      "--allow-exec",
      "let `warden exec`, `shell` and `cp` step inside the sandbox while the task runs (off by default)",
    )
    .option(
      "--debug",
      "keep the sandbox serving after the agent ends, until `warden stop` or the deadline (implies --allow-exec)",
    );
}

/** The policies of --approve, as the settings name them. */
const APPROVE_POLICIES = ["always", "never", "prompt"] as const satisfies readonly NonNullable<
  Settings["approve"]
>[];

/** The prompt: text from the command line, or the bytes of a file or stdin for the store to decode. */
async function readPrompt(flags: TaskFlags): Promise<string | Buffer> {
  if (flags.prompt !== undefined && flags.promptFile !== undefined) {
    throw new UsageError("both --prompt and --prompt-file were given", {
      hint: "give the prompt once",
    });
  }
  if (flags.prompt !== undefined) return commandLineText(flags.prompt, PROMPT_INPUT);
  if (flags.promptFile === "-") return readStdinBytes(PROMPT_INPUT);
  if (flags.promptFile !== undefined) return readRegularFile(flags.promptFile, PROMPT_INPUT);
  if (process.stdin.isTTY) {
    throw new UsageError("no prompt was given", {
      hint: "say what the task is to do with --prompt TEXT, --prompt-file FILE, or on stdin",
    });
  }
  return readStdinBytes(PROMPT_INPUT);
}

/**
 * Refuses a flag for a setting the agent does not take, in the flag's own name: the settings
 * would refuse it too, but in task.json's words.
 */
function refuseFlagsNotTaken(agent: AgentName, flags: TaskFlags): void {
  const given: [string, AgentField, unknown][] = [
    ["--max-turns", "maxTurns", flags.maxTurns],
    ["--max-budget-usd", "maxBudgetUSD", flags.maxBudgetUsd],
    ["--approve", "approve", flags.approve],
    ["--append-system-prompt", "appendSystemPrompt", flags.appendSystemPrompt],
    ["--agent-program", "agentProgram", flags.agentProgram],
  ];
  for (const [flag, field, value] of given) {
    if (value !== undefined && !agentTakes(agent, field)) {
      throw new UsageError(`the ${agent} agent takes no ${flag}`, {
        hint: `drop ${flag}; docs/agents.md says which settings each agent takes`,
      });
    }
  }
}

/**
 * The task the flags describe, with the config files' defaults for what they leave out. A
 * command after `--` means the command agent whatever the files say.
 */
export async function taskInput(given: TaskFlags, argv: string[]): Promise<CreateTaskInput> {
  const config = await loadConfig({ repo: given.repo });
  for (const warning of ignoredKeyWarnings(config)) standardError.write(warning);
  const agent = (given.agent ??
    (argv.length > 0 ? "command" : (config.values.agent ?? "claude"))) as AgentName;
  if (agent === "command" && argv.length === 0) {
    throw new UsageError("the command agent needs a command", {
      hint: "put the agent's command after `--`: warden run --agent command -- ./agent.sh",
    });
  }
  if (agent !== "command" && argv.length > 0) {
    throw new UsageError(`the ${agent} agent takes no command after \`--\``, {
      hint: "drop what follows `--`, or run it as a command with --agent command",
    });
  }
  refuseFlagsNotTaken(agent, given);
  const flags = flagsWithConfig(given, config.values, agent);
  const input: CreateTaskInput = {
    repo: flags.repo,
    prompt: await readPrompt(flags),
    agent,
    ...(argv.length === 0 ? {} : { command: argv }),
    sandbox: flags.sandbox === "none" ? "none" : "bwrap",
    allow: flags.allow ?? [],
    presets: flags.preset ?? [],
    envNames: flags.env ?? [],
  };
  if (flags.from !== undefined) input.from = flags.from;
  if (flags.model !== undefined) input.model = flags.model;
  if (flags.gitName !== undefined) input.gitName = flags.gitName;
  if (flags.gitEmail !== undefined) input.gitEmail = flags.gitEmail;
  if (flags.maxTurns !== undefined) input.maxTurns = parseCount(flags.maxTurns, "--max-turns");
  if (flags.maxBudgetUsd !== undefined) {
    input.maxBudgetUSD = parseAmount(flags.maxBudgetUsd, "--max-budget-usd");
  }
  if (flags.timeout !== undefined) input.timeoutSeconds = parseSeconds(flags.timeout, "--timeout");
  if (flags.deadline !== undefined) input.deadline = flags.deadline;
  if (flags.approve !== undefined) {
    input.approve = flags.approve as NonNullable<CreateTaskInput["approve"]>;
  }
  if (flags.allowTool !== undefined) input.allowTools = flags.allowTool;
  if (flags.denyTool !== undefined) input.denyTools = flags.denyTool;
  if (flags.approveTimeout !== undefined) {
    input.approveTimeoutSeconds = parseSeconds(flags.approveTimeout, "--approve-timeout");
  }
  if (flags.appendSystemPrompt !== undefined) input.appendSystemPrompt = flags.appendSystemPrompt;
  if (flags.agentProgram !== undefined) input.agentProgram = resolve(flags.agentProgram);
  const limits: { memoryBytes?: number; processes?: number; diskBytes?: number } = {};
  if (flags.memory !== undefined) limits.memoryBytes = parseBytes(flags.memory, "--memory");
  if (flags.disk !== undefined) limits.diskBytes = parseBytes(flags.disk, "--disk");
  if (flags.maxProcesses !== undefined) {
    limits.processes = parseCount(flags.maxProcesses, "--max-processes");
  }
  if (Object.keys(limits).length > 0) input.limits = limits;
  const setup = setupInput(flags);
  if (setup !== undefined) input.setup = setup;
  if (flags.workspace !== undefined && flags.workspace.length > 0) {
    input.workspaces = flags.workspace.map((text) => parseWorkspaceBinding(text, process.cwd()));
  }
  if (flags.allowExec === true || flags.allowExec === "true") input.allowExec = true;
  if (flags.debug === true) input.debug = true;
  Object.assign(input, await taskMcpInput(given, config.values));
  return input;
}

/** The setup the flags (with the config's defaults) name; undefined when they name none. */
function setupInput(flags: TaskFlags): CreateTaskInput["setup"] {
  const setup: NonNullable<CreateTaskInput["setup"]> = {};
  if (flags.setup !== undefined) setup.commands = flags.setup;
  if (flags.setupGoal !== undefined) setup.goal = flags.setupGoal;
  if (flags.setupTimeout !== undefined) {
    setup.timeoutSeconds = parseSeconds(flags.setupTimeout, "--setup-timeout");
  }
  if (flags.setupAllow !== undefined) setup.allow = flags.setupAllow;
  if (flags.setupPreset !== undefined) setup.presets = flags.setupPreset;
  if (flags.setupEnv !== undefined) setup.envNames = flags.setupEnv;
  if (flags.setupKey !== undefined) setup.key = flags.setupKey;
  return Object.keys(setup).length === 0 ? undefined : setup;
}
