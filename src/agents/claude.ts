// The `claude` agent: Claude Code, warden's default agent.
import type { AgentAdapter } from "./adapter.js";
import { userMessageLine } from "./claudeInput.js";
import { claudeLaunch } from "./claudeLaunch.js";
import { claudeOutcome } from "./claudeOutcome.js";
import { ClaudeStreamReader } from "./claudeStream.js";

export const claudeAgent: AgentAdapter = {
  name: "claude",
  launch: claudeLaunch,
  readStream: () => new ClaudeStreamReader(),
  outcome: claudeOutcome,
  conversation: { userMessageLine },
};
