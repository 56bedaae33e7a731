// warden's agents: one adapter per agent, each a pure description of how to start it, read
// its stream, judge its end and send it further messages. Each agent is a folder that fills in
// launch, stream and outcome; what they share lives beside them.
import type { AgentName } from "../protocol/index.js";
import type { AgentAdapter } from "./adapter.js";
import { claudeAgent } from "./claude/index.js";
import { createCodexAgent } from "./codex/index.js";
import { commandAgent } from "./command/index.js";
import { createGeminiAgent } from "./gemini/index.js";

export type {
  AgentAdapter,
  AgentExit,
  AgentLaunch,
  AgentOutcome,
  AgentResultEvent,
  AgentResume,
  AgentSessions,
  AgentTask,
  PermissionPromptTool,
  SessionFileSearch,
  SessionPlacement,
} from "./adapter.js";
export { AGENT_EVENT_LIMITS } from "./limits.js";
export { CLAUDE_TOOL_SUBJECT, LIKELY_SUBJECT_FIELDS } from "./claude/tools.js";
export type { AgentEvent, StreamReader } from "./agentEvent.js";

/**
 * Every agent the settings may name has its adapter here; the type keeps the two in step, so
 * adding a name to AGENTS fails to compile until its adapter is added here (and its profile in
 * src/protocol/agentProfiles.ts). Claude's and the command's adapters keep nothing between runs
 * and are shared; Codex's and Gemini's add up their task's runs, so each call makes a new one.
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
