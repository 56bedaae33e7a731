// How warden starts Claude Code: print mode with JSON streams both ways, the task's bounds, a
// permission mode that needs nobody at the keyboard, and an environment that keeps it quiet.
import { join } from "node:path";
import { AGENT_PROFILES, BadSettingsError, type Settings } from "../../protocol/index.js";
import type { AgentLaunch, AgentTask, PermissionPromptTool } from "../adapter.js";
import { CLAUDE_LIMITS } from "../limits.js";
import { userMessageLine } from "./input.js";
import { CLAUDE_CONFIG_DIR, CLAUDE_SKILLS_DIR, claudeMcp } from "./mcp.js";

/** The program when the settings name none: found on the agent's PATH. */
export const CLAUDE_PROGRAM = AGENT_PROFILES.claude.program;

/** The policy for permission prompts when the settings name none: unattended runs never ask. */
export const CLAUDE_DEFAULT_APPROVE = "always";

/**
 * The environment Claude Code gets from the adapter. No secret is here: the API key arrives as
 * a placeholder in the settings' env and the base URL from the runner's egress variables, and
 * both of those win over these.
 */
export const CLAUDE_ENV: Readonly<Record<string, string>> = Object.freeze({
  // The sandbox is the isolation: this lets bypassPermissions run as root (refused otherwise).
  IS_SANDBOX: "1",
  CLAUDE_CODE_MAX_RETRIES: String(CLAUDE_LIMITS.maxRetries),
  // An unattended run updates nothing, reports nothing and fetches nothing it does not need.
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
});

/** Claude Code's options for the settings' approval policy. */
function permissionArgs(
  approve: NonNullable<Settings["approve"]>,
  promptTool: PermissionPromptTool | undefined,
): string[] {
  switch (approve) {
    case "always":
      // Every tool call runs, except what disallowedTools names; the sandbox bounds them.
      return ["--permission-mode", "bypassPermissions"];
    case "never":
      // Only what allowedTools (or Claude Code's read-only defaults) allows runs; every call
      // that would ask is denied at once, and the model is told so.
      return ["--permission-mode", "dontAsk"];
    case "prompt":
      if (promptTool === undefined) {
        throw new BadSettingsError(
          'approve is "prompt", but nothing in this sandbox can ask for an approval',
          {
            hint: 'use approve "always" or "never", or run the task where warden can ask (warden approve)',
          },
        );
      }
      // The tool's server is among the task's servers (claudeMcp).
      return ["--permission-mode", "default", option("permission-prompt-tool", promptTool.tool)];
  }
}

/**
 * An option with its value in one argument (`--model=x`): a value that starts with `-` (a
 * system prompt may) can then never be read as an option of its own.
 */
function option(name: string, value: string): string {
  return `--${name}=${value}`;
}

/** Each pattern in its own option, so a pattern with a space or comma stays one pattern. */
function toolArgs(name: string, patterns: readonly string[] | undefined): string[] {
  return (patterns ?? []).map((pattern) => option(name, pattern));
}

/** The options and message that start Claude Code for a task. Pure. */
export function claudeLaunch(task: AgentTask): AgentLaunch {
  const { settings } = task;
  const argv: [string, ...string[]] = [
    settings.agentProgram ?? CLAUDE_PROGRAM,
    "--print",
    "--output-format",
    "stream-json",
    "--verbose",
    "--input-format",
    "stream-json",
    ...permissionArgs(settings.approve ?? CLAUDE_DEFAULT_APPROVE, task.permissionPromptTool),
  ];
  if (settings.model !== undefined) argv.push(option("model", settings.model));
  // Zero means "Claude Code's own default", which is no bound at all.
  if (settings.maxTurns !== undefined && settings.maxTurns > 0) {
    argv.push(option("max-turns", String(settings.maxTurns)));
  }
  if (settings.maxBudgetUSD !== undefined && settings.maxBudgetUSD > 0) {
    argv.push(option("max-budget-usd", String(settings.maxBudgetUSD)));
  }
  argv.push(...toolArgs("allowedTools", settings.allowedTools));
  argv.push(...toolArgs("disallowedTools", settings.disallowedTools));
  if (settings.appendSystemPrompt !== undefined) {
    argv.push(option("append-system-prompt", settings.appendSystemPrompt));
  }
  // Claude Code's file tools reach its working directory and these alone.
  argv.push(...(task.addDirs ?? []).map((dir) => option("add-dir", dir)));
  const mcp = claudeMcp(task);
  argv.push(...mcp.args);
  // A resumed run goes on with the session a checkpoint put back, and its first message is the
  // resume's (a note that it was interrupted, or a continuation's prompt).
  if (task.resume !== undefined) argv.push(option("resume", task.resume.sessionId));
  const stdin = userMessageLine(task.resume?.message ?? task.prompt);
  if (task.home === undefined) return { argv, env: CLAUDE_ENV, stdin };
  // Its configuration, sessions and skills in the task's home, never the user's own ~/.claude.
  const configDir = join(task.home, CLAUDE_CONFIG_DIR);
  return {
    argv,
    env: { ...CLAUDE_ENV, CLAUDE_CONFIG_DIR: configDir },
    stdin,
    ...(mcp.file === undefined ? {} : { files: [mcp.file] }),
    ...(task.skills === undefined ? {} : { skillsDir: join(configDir, CLAUDE_SKILLS_DIR) }),
  };
}
