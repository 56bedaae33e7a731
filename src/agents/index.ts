// warden's agents: one adapter per agent, each a pure description of how to start it, read
// its stream, judge its end and send it further messages.
import type { AgentName } from "../protocol/index.js";
import type { AgentAdapter } from "./adapter.js";
import { claudeAgent } from "./claude.js";
import { createCodexAgent } from "./codexAgent.js";
import { commandAgent } from "./command.js";
import { createGeminiAgent } from "./geminiAgent.js";

export type {
  AgentAdapter,
  AgentConversation,
  AgentExit,
  AgentFile,
  AgentLaunch,
  AgentResume,
  AgentOutcome,
  AgentResultEvent,
  AgentTask,
  PermissionPromptTool,
} from "./adapter.js";
export { commandAgent } from "./command.js";
export { claudeAgent } from "./claude.js";
export { userMessageLine } from "./claudeInput.js";
export {
  CLAUDE_ENV,
  CLAUDE_PROGRAM,
  CLAUDE_DEFAULT_APPROVE,
  claudeLaunch,
} from "./claudeLaunch.js";
export { CLAUDE_LIMITS } from "./claudeLimits.js";
export { CLAUDE_TOOL_SUBJECT, LIKELY_SUBJECT_FIELDS } from "./claudeTools.js";
export {
  MADE_UP_TERMINAL_REASON,
  claudeOutcome,
  claudeResultEvent,
  madeUpClaudeResult,
} from "./claudeOutcome.js";
export { ClaudeStreamReader } from "./claudeStream.js";
export {
  AGENT_EVENT_LIMITS,
  type AgentEvent,
  type AgentEventType,
  type AgentStop,
  type StreamReader,
} from "./agentEvent.js";

export { CODEX_PROGRAM } from "./codexLaunch.js";
export { CODEX_HOME_DIR, codexTaskOf, createCodexAgent } from "./codexAgent.js";
export { GEMINI_PROGRAM } from "./geminiLaunch.js";
export { createGeminiAgent, geminiTaskOf } from "./geminiAgent.js";

/**
 * Every agent the settings may name has its adapter here; the type keeps the two in step, so
 * adding a name to AGENTS fails to compile until its adapter is added here. Claude's and the
 * command's adapters keep nothing between runs and are shared; Codex's and Gemini's add up
 * their task's runs, so each call makes a new one.
 */
const ADAPTERS: Readonly<Record<AgentName, () => AgentAdapter>> = {
  claude: () => claudeAgent,
  codex: createCodexAgent,
  gemini: createGeminiAgent,
  command: () => commandAgent,
};

/** A new adapter for one task of an agent named in the settings. */
export function adapterFor(name: AgentName): AgentAdapter {
  return ADAPTERS[name]();
}
