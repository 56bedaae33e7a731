// Whether a task's agent reads the messages `warden send` puts in its inbox. Claude Code takes
// them on stdin while it runs, Codex CLI and Gemini CLI as a run that resumes the session; a
// `command` agent has no way to receive one, so a message to it is refused, never kept unread.
import { AGENT_PROFILES, AGENTS, type AgentName } from "../protocol/index.js";
import { MessagesNotTakenError } from "./errors.js";

/** Whether the runner hands further messages to this agent (its profile, kept with its adapter). */
export function agentTakesMessages(agent: AgentName): boolean {
  return AGENT_PROFILES[agent].takesMessages;
}

/**
 * The agent a host-made task's settings name, read as plain fields: the create step checked
 * them, and checking them again here would load every schema for one name.
 */
function hostAgent(settings: Record<string, unknown>): AgentName | undefined {
  const guest = settings.guest;
  if (settings.version !== 1 || typeof guest !== "object" || guest === null) return undefined;
  const agent = (guest as Record<string, unknown>).agent;
  return AGENTS.find((name) => name === agent);
}

/**
 * Refuses a message to task `id` (whose spec holds `settings`) when its agent takes none. A task
 * the host did not make is left to the store's own checks: its agent is not the host's to know.
 */
export function checkTakesMessages(id: string, settings: Record<string, unknown>): void {
  const agent = hostAgent(settings);
  if (agent === undefined || agentTakesMessages(agent)) return;
  const takers = AGENTS.filter(agentTakesMessages).map((name) => `\`${name}\``);
  throw new MessagesNotTakenError(
    `task ${id} has the \`${agent}\` agent, which takes no messages`,
    {
      hint:
        `messages reach the agents ${takers.slice(0, -1).join(", ")} and ${takers.at(-1) ?? ""}; ` +
        `a \`${agent}\` agent reads only its ` +
        "prompt, so put what it needs there and run a new task",
    },
  );
}
