// Every fact about an agent that more than one floor of warden needs, in one profile per agent:
// the settings it takes (checked on both sides of the sandbox), its program and how to install
// it, and the model API it calls. The profiles are keyed by every AgentName with no field
// optional, so a new name fails to compile until its profile says each of these.

/**
 * The agents the runner knows: Claude Code (the default), Codex CLI, Gemini CLI and any command.
 * A new agent is a name here, its profile below and an adapter in src/agents.
 */
export const AGENTS = ["claude", "codex", "gemini", "command"] as const;
export type AgentName = (typeof AGENTS)[number];

/** The settings Claude Code takes beyond the common ones: every agent-only one but `command`. */
const CLAUDE_FIELDS = [
  "allowedTools",
  "disallowedTools",
  "appendSystemPrompt",
  "approve",
  "agentProgram",
  "maxTurns",
  "maxBudgetUSD",
] as const;

/** The settings only some agents take. */
export const AGENT_ONLY_FIELDS = ["command", ...CLAUDE_FIELDS] as const;
export type AgentField = (typeof AGENT_ONLY_FIELDS)[number];

/** A model API an agent calls through the host's relay. */
export type AgentApi = "anthropic" | "openai" | "gemini";

export interface AgentProfile {
  /**
   * The optional settings it takes beyond the common ones; a field set for an agent that does
   * not take it is refused, so a setting is never silently ignored.
   */
  readonly fields: readonly AgentField[];
  /** Its program's usual name, looked for on PATH; undefined for an agent that brings its argv. */
  readonly program: string | undefined;
  /** How a person installs that program, in the words of a hint. */
  readonly install: string | undefined;
  /** The API it calls, for which the host must hold a key the relay adds; undefined: none. */
  readonly api: AgentApi | undefined;
  /**
   * Whether the runner hands it the messages `warden send` leaves while it runs. Its adapter
   * decides (a live conversation, or a resumable session); this copy lets `send` refuse a message
   * without loading every adapter, and a test holds the two together.
   */
  readonly takesMessages: boolean;
}

export const AGENT_PROFILES = {
  claude: {
    fields: CLAUDE_FIELDS,
    program: "claude",
    install: "Claude Code (`npm install -g @anthropic-ai/claude-code`)",
    api: "anthropic",
    takesMessages: true,
  },
  codex: {
    // Codex CLI has no bound on turns or spending and no permission prompt a program can answer;
    // its budget is the host's alone, enforced at the relay.
    fields: ["agentProgram", "maxBudgetUSD"],
    program: "codex",
    install: "Codex CLI (`npm install -g @openai/codex`)",
    api: "openai",
    takesMessages: true,
  },
  gemini: {
    // Gemini CLI bounds model calls (maxSessionTurns) but not spending, and asks no program;
    // its budget is the host's alone, enforced at the relay.
    fields: ["agentProgram", "maxTurns", "maxBudgetUSD"],
    program: "gemini",
    install: "Gemini CLI (`npm install -g @google/gemini-cli`)",
    api: "gemini",
    takesMessages: true,
  },
  command: {
    // A command may read its bounds from the metadata server and keep to them itself.
    fields: ["command", "maxTurns", "maxBudgetUSD"],
    program: undefined,
    install: undefined,
    // It needs no key; it gets the Anthropic relay when the host has a key for it.
    api: undefined,
    takesMessages: false,
  },
} as const satisfies Readonly<Record<AgentName, AgentProfile>>;

/** Whether an agent takes a setting that only some agents take. */
export function agentTakes(agent: AgentName, field: AgentField): boolean {
  const fields: readonly AgentField[] = AGENT_PROFILES[agent].fields;
  return fields.includes(field);
}
