// The `gemini` adapter for one task: Gemini CLI's launch, stream, and outcome, with the ledger
// that adds up the task's runs. Each further message is a new run with `--resume`.
import { join } from "node:path";
import type { AgentAdapter, AgentLaunch, AgentTask } from "./adapter.js";
import {
  GEMINI_SETTINGS_FILE,
  geminiLaunch,
  geminiSettings,
  type GeminiTask,
} from "./geminiLaunch.js";
import { GeminiLedger } from "./geminiLedger.js";
import { geminiOutcome } from "./geminiOutcome.js";
import { GeminiRetryReader } from "./geminiRetries.js";
import { geminiStreamReader } from "./geminiStream.js";

/** The Gemini task a warden task describes; its home holds Gemini's settings. Pure. */
export function geminiTaskOf(task: AgentTask): GeminiTask {
  const { settings } = task;
  return {
    prompt: task.prompt,
    ...(settings.model === undefined ? {} : { model: settings.model }),
    ...(settings.maxTurns === undefined ? {} : { maxTurns: settings.maxTurns }),
    ...(settings.agentProgram === undefined ? {} : { agentProgram: settings.agentProgram }),
    ...(task.resume === undefined ? {} : { resume: task.resume }),
    ...(task.home === undefined ? {} : { configHome: task.home }),
    ...(task.apiBaseUrl === undefined ? {} : { api: { baseUrl: task.apiBaseUrl } }),
  };
}

/** A new Gemini adapter, for one task. */
export function createGeminiAgent(): AgentAdapter {
  const ledger = new GeminiLedger();
  return {
    name: "gemini",
    resumable: true,
    launch(task: AgentTask): AgentLaunch {
      const gemini = geminiTaskOf(task);
      const launch = geminiLaunch(gemini);
      if (gemini.configHome === undefined) return launch;
      return {
        ...launch,
        files: [
          { path: join(gemini.configHome, GEMINI_SETTINGS_FILE), text: geminiSettings(gemini) },
        ],
      };
    },
    readStream: () => geminiStreamReader(ledger),
    readLog: () => new GeminiRetryReader(),
    outcome: (exit) => geminiOutcome(exit, exit.lastResult),
  };
}
