// What an adapter checks again before a value from the task reaches an agent's command line,
// so that it never depends on the settings having been checked: each refusal is a
// BadSettingsError that names the agent.
import { BadSettingsError, type AgentName } from "../protocol/index.js";

/**
 * A session id warden passes back to an agent: what Codex and Gemini write (a UUID) fits, and
 * it starts with a letter or digit, so it can never pass for an option.
 */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/u;

/** A model name: no leading `-`, no space, no control or format character. */
const MODEL = /^[^-\s\p{Cc}\p{Cf}][^\s\p{Cc}\p{Cf}]{0,255}$/u;

/** A base URL warden gives an agent: http(s), a host, a plain path. */
const BASE_URL = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?(?:\/[A-Za-z0-9._~/-]*)?$/u;

export function refuse(agent: AgentName, what: string, hint: string): never {
  throw new BadSettingsError(`${agent}: ${what}`, { hint });
}

/** The program to run: the task's, which must be an absolute path, else the agent's usual one. */
export function checkProgram(
  agent: AgentName,
  configured: string | undefined,
  usual: string,
): string {
  if (configured !== undefined && !configured.startsWith("/")) {
    refuse(agent, "agentProgram is not an absolute path", "give the program's absolute path");
  }
  return configured ?? usual;
}

/**
 * The `--model=` argument for the task's model, none when it names no model. Refuses a name that
 * could be read as an option or split in two; `example` is a good one.
 */
export function modelArgs(agent: AgentName, model: string | undefined, example: string): string[] {
  if (model === undefined) return [];
  if (!MODEL.test(model)) {
    refuse(agent, "the model name starts with '-' or has a space", `use a name such as ${example}`);
  }
  return [`--model=${model}`];
}

/** Refuses a session to resume whose id is not plain. */
export function checkSessionId(agent: AgentName, sessionId: string): void {
  if (!SESSION_ID.test(sessionId)) {
    refuse(
      agent,
      "the session to resume has no plain id",
      "resume with the id of the session event",
    );
  }
}

/** Refuses an API base URL that is not plain; `example` shows the form the agent takes. */
export function checkBaseUrl(agent: AgentName, baseUrl: string, example: string): void {
  if (!BASE_URL.test(baseUrl)) {
    refuse(agent, "the API base URL is not a plain http(s) URL", `give it as ${example}`);
  }
}
