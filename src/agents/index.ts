// warden's agents: one adapter per agent, each a pure description of how to start it.
import type { AgentName } from "../protocol/index.js";
import type { AgentAdapter } from "./adapter.js";
import { commandAgent } from "./command.js";

export type { AgentAdapter, AgentLaunch, AgentTask } from "./adapter.js";
export { commandAgent } from "./command.js";
export {
  AGENT_EVENT_LIMITS,
  type AgentEvent,
  type AgentEventType,
  type AgentStop,
  type StreamReader,
} from "./agentEvent.js";

/** Every agent the settings may name has its adapter here; the type keeps the two in step. */
const ADAPTERS: Readonly<Record<AgentName, AgentAdapter>> = { command: commandAgent };

/** The adapter for an agent named in the settings. */
export function adapterFor(name: AgentName): AgentAdapter {
  return ADAPTERS[name];
}
