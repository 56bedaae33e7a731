// The `claude` agent: Claude Code, warden's default agent.
import type { AgentAdapter } from "../adapter.js";
import { userMessageLine } from "./input.js";
import { claudeLaunch } from "./launch.js";
import { claudeOutcome } from "./outcome.js";
import { claudeSessions } from "./session.js";
import { ClaudeStreamReader } from "./stream.js";

export const claudeAgent: AgentAdapter = {
  name: "claude",
  launch: claudeLaunch,
  readStream: () => new ClaudeStreamReader(),
  outcome: claudeOutcome,
  conversation: { userMessageLine },
  sessions: claudeSessions,
};
