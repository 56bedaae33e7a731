// The `gemini` adapter for one task: Gemini CLI's launch, stream, and outcome, with the ledger
// that adds up the task's runs. Each further message is a new run with `--resume`.
import { join } from "node:path";
import { definedFields } from "../../lang/index.js";
import type { AgentAdapter, AgentLaunch, AgentTask } from "../adapter.js";
import { resumingTaskOf } from "../resumingTask.js";
import { GEMINI_SETTINGS_FILE, geminiLaunch, geminiSettings, type GeminiTask } from "./launch.js";
import { GeminiLedger } from "./ledger.js";
import { GEMINI_SKILLS_DIR } from "./mcp.js";
import { geminiOutcome } from "./outcome.js";
import { GeminiRetryReader } from "./retries.js";
import { geminiSessions } from "./session.js";
import { geminiStreamReader } from "./stream.js";

/** The Gemini task a warden task describes; its home holds Gemini's settings. Pure. */
export function geminiTaskOf(task: AgentTask): GeminiTask {
  const { settings, apiBaseUrl } = task;
  return definedFields({
    ...resumingTaskOf(task),
    maxTurns: settings.maxTurns,
    configHome: task.home,
    api: apiBaseUrl === undefined ? undefined : { baseUrl: apiBaseUrl },
    mcpServers: settings.mcpServers,
  });
}

/** A new Gemini adapter, for one task. */
export function createGeminiAgent(): AgentAdapter {
  const ledger = new GeminiLedger();
  return {
    name: "gemini",
    resumable: true,
    sessions: geminiSessions,
    launch(task: AgentTask): AgentLaunch {
      const gemini = geminiTaskOf(task);
      const launch = geminiLaunch(gemini);
      if (gemini.configHome === undefined) return launch;
      return {
        ...launch,
        files: [
          { path: join(gemini.configHome, GEMINI_SETTINGS_FILE), text: geminiSettings(gemini) },
        ],
        ...(task.skills === undefined
          ? {}
          : { skillsDir: join(gemini.configHome, GEMINI_SKILLS_DIR) }),
      };
    },
    readStream: () => geminiStreamReader(ledger),
    readLog: () => new GeminiRetryReader(),
    outcome: geminiOutcome,
  };
}
