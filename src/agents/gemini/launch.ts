// How warden starts Gemini CLI (0.61): headless, `--output-format=stream-json`, every tool call
// approved (`--approval-mode=yolo`) and the workspace trusted (`--skip-trust`), because nobody
// is there to answer and warden's sandbox is the isolation. A further message is a new run that
// resumes the session: the same options and `--resume=<session id>`.
//
// Neither the prompt nor a message is ever an argument: each goes to stdin (Gemini reads a
// piped stdin as its input when no TTY is attached), so text that starts with `-` can never be
// read as an option and a long prompt meets no argv limit. Every other value is inside its own
// `--name=value` argument.
//
// Some of what warden needs has no option and lives in Gemini's settings file: the runner
// writes geminiSettings() to GEMINI_SETTINGS_FILE under a directory of its own and names that
// directory in `configHome` (Gemini's GEMINI_CLI_HOME, where it also keeps its sessions, so
// every run of a task must get the same one).
import { AGENT_PROFILES, type McpServers } from "../../protocol/index.js";
import type { AgentLaunch } from "../adapter.js";
import { checkBaseUrl, checkProgram, checkSessionId, modelArgs, refuse } from "../launchChecks.js";
import type { ResumingTask } from "../resumingTask.js";
import { geminiMcpServers } from "./mcp.js";

/** The program when the task names none: found on the agent's PATH. */
export const GEMINI_PROGRAM = AGENT_PROFILES.gemini.program;

/** Gemini's settings file, relative to `configHome`. */
export const GEMINI_SETTINGS_FILE = ".gemini/settings.json";

/** What the Gemini adapter needs of a task. */
export interface GeminiTask extends ResumingTask {
  /** The most model calls this run may make (Gemini's maxSessionTurns); 0 or absent: no bound. */
  readonly maxTurns?: number;
  /** The absolute directory that holds GEMINI_SETTINGS_FILE (becomes GEMINI_CLI_HOME). */
  readonly configHome?: string;
  /** The Gemini API to talk to (warden's API relay on loopback). Absent: Gemini's default. */
  readonly api?: { readonly baseUrl: string };
  /** The task's MCP servers, which the settings file names (mcp.ts). */
  readonly mcpServers?: McpServers;
}

/**
 * The settings file that goes with a task, as JSON text. Gemini reads it as the user's
 * settings (the workspace's own .gemini/settings.json may add to them). Pure.
 */
export function geminiSettings(task: GeminiTask): string {
  const settings: Record<string, unknown> = {
    // An unattended run updates nothing and reports nothing.
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
  };
  if (task.api !== undefined) {
    // Gemini CLI 0.61 takes GOOGLE_GEMINI_BASE_URL alone for a "gateway" login that its own
    // headless check then refuses (exit 41, "Invalid auth method selected"); naming the API
    // key login keeps the base URL and the key from the environment.
    settings.security = { auth: { selectedType: "gemini-api-key" } };
  }
  const maxTurns = task.maxTurns ?? 0;
  if (!Number.isSafeInteger(maxTurns) || maxTurns < 0) {
    refuse("gemini", "maxTurns is not a whole number of at least 0", "give maxTurns as 0 or more");
  }
  if (maxTurns > 0) settings.model = { maxSessionTurns: maxTurns };
  if (task.mcpServers !== undefined) settings.mcpServers = geminiMcpServers(task.mcpServers);
  return `${JSON.stringify(settings, null, 2)}\n`;
}

/** The argv, environment and stdin that start one Gemini run. Pure. */
export function geminiLaunch(task: GeminiTask): AgentLaunch {
  const program = checkProgram("gemini", task.agentProgram, GEMINI_PROGRAM);
  const argv: [string, ...string[]] = [
    program,
    "--output-format=stream-json",
    "--approval-mode=yolo",
    "--skip-trust",
    ...modelArgs("gemini", task.model, "gemini-2.5-pro"),
  ];
  // One process, not a launcher that starts Gemini again as its child: the runner's signals
  // and exit code then reach Gemini itself.
  const env: Record<string, string> = { GEMINI_CLI_NO_RELAUNCH: "true" };
  if (task.configHome !== undefined) {
    if (!task.configHome.startsWith("/")) {
      refuse("gemini", "configHome is not an absolute path", "give the directory's absolute path");
    }
    env.GEMINI_CLI_HOME = task.configHome;
  }
  if (task.api !== undefined) {
    checkBaseUrl("gemini", task.api.baseUrl, "http://host:port");
    env.GOOGLE_GEMINI_BASE_URL = task.api.baseUrl;
  }
  if (task.resume === undefined) return { argv, env, stdin: task.prompt };
  const { sessionId, message } = task.resume;
  checkSessionId("gemini", sessionId);
  argv.push(`--resume=${sessionId}`);
  return { argv, env, stdin: message };
}
