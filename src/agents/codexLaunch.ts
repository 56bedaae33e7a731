// How warden starts Codex CLI (0.171): `codex exec --json`, non-interactive, with Codex's own
// approvals and sandbox off because warden's sandbox is the isolation. A further message is a
// new run that resumes the session: `codex exec resume --json ... -- <session id> -`.
//
// Neither the prompt nor a message is ever an argument: each goes to stdin, which `-` names, so
// text that starts with `-` can never be read as an option and a long prompt meets no argv
// limit. Every other value is inside its own `--name=value` argument.
import { BadSettingsError } from "../protocol/index.js";
import type { AgentLaunch } from "./adapter.js";

/** The program when the task names none: found on the agent's PATH. */
export const CODEX_PROGRAM = "codex";

/**
 * A session id warden passes back to Codex: what Codex writes (a UUID) fits, and it starts with
 * a letter or digit, so it can never pass for an option.
 */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/u;

/**
 * A model name: settings refuse a leading `-`, spaces and control characters; the adapter
 * refuses them again, so it never depends on the settings having been checked.
 */
const MODEL = /^[^-\s\p{Cc}\p{Cf}][^\s\p{Cc}\p{Cf}]{0,255}$/u;

/** An environment variable's name. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/u;

/** A base URL warden puts into Codex's configuration: http(s), a host, a plain path. */
const BASE_URL = /^https?:\/\/[A-Za-z0-9.-]+(?::\d{1,5})?(?:\/[A-Za-z0-9._~/-]*)?$/u;

/** The name of the model provider warden configures when the task goes through the API relay. */
export const CODEX_PROVIDER = "warden";

/** The variable that holds the (placeholder) API key when the task does not name one. */
export const CODEX_KEY_VARIABLE = "OPENAI_API_KEY";

/** What the Codex adapter needs of a task. */
export interface CodexTask {
  /** The task's prompt: the first run's message. */
  readonly prompt: string;
  readonly model?: string;
  /** Codex's program inside the sandbox, an absolute path; absent: `codex` on PATH. */
  readonly agentProgram?: string;
  /** Present for a further message: the session to resume (from the `session` event) and it. */
  readonly resume?: { readonly sessionId: string; readonly message: string };
  /**
   * The Responses API to talk to: its base URL, to which Codex adds `/responses` (warden's
   * relay root on loopback, whose upstream carries the `/v1`), and the variable that holds the
   * key the relay expects. Absent: Codex's own default.
   */
  readonly api?: { readonly baseUrl: string; readonly keyVariable?: string };
}

function refuse(what: string, hint: string): never {
  throw new BadSettingsError(`codex: ${what}`, { hint });
}

/** A TOML string for a `--config` value. JSON's escapes are TOML's basic-string escapes. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The options that point Codex at the API relay as a model provider of its own. */
function providerArgs(api: NonNullable<CodexTask["api"]>): string[] {
  if (!BASE_URL.test(api.baseUrl)) {
    refuse("the API base URL is not a plain http(s) URL", "give it as http://host:port/v1");
  }
  const keyVariable = api.keyVariable ?? CODEX_KEY_VARIABLE;
  if (!ENV_NAME.test(keyVariable)) {
    refuse("the API key variable is not a variable name", "name it like OPENAI_API_KEY");
  }
  const provider = `model_providers.${CODEX_PROVIDER}`;
  return [
    `--config=model_provider=${tomlString(CODEX_PROVIDER)}`,
    `--config=${provider}.name=${tomlString(CODEX_PROVIDER)}`,
    `--config=${provider}.base_url=${tomlString(api.baseUrl)}`,
    `--config=${provider}.env_key=${tomlString(keyVariable)}`,
    `--config=${provider}.wire_api=${tomlString("responses")}`,
  ];
}

/** The argv and stdin that start one Codex run: the prompt, or a resumed session's message. Pure. */
export function codexLaunch(task: CodexTask): AgentLaunch {
  const program = task.agentProgram ?? CODEX_PROGRAM;
  if (task.agentProgram !== undefined && !task.agentProgram.startsWith("/")) {
    refuse("agentProgram is not an absolute path", "give the program's absolute path");
  }
  const options = [
    "--json",
    // The workspace is a git repository, but the check is Codex's business, not warden's.
    "--skip-git-repo-check",
    // Nobody is there to approve, and warden's sandbox bounds what a command can reach.
    "--dangerously-bypass-approvals-and-sandbox",
  ];
  if (task.model !== undefined) {
    if (!MODEL.test(task.model)) {
      refuse("the model name starts with '-' or has a space", "use a name such as gpt-5-codex");
    }
    options.push(`--model=${task.model}`);
  }
  if (task.api !== undefined) options.push(...providerArgs(task.api));
  if (task.resume === undefined) {
    // `-`: the prompt is on stdin. After `--`, nothing can be read as an option.
    return { argv: [program, "exec", ...options, "--", "-"], env: {}, stdin: task.prompt };
  }
  const { sessionId, message } = task.resume;
  if (!SESSION_ID.test(sessionId)) {
    refuse("the session to resume has no plain id", "resume with the id of the session event");
  }
  return {
    argv: [program, "exec", "resume", ...options, "--", sessionId, "-"],
    env: {},
    stdin: message,
  };
}
