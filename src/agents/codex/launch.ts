// How warden starts Codex CLI (0.171): `codex exec --json`, non-interactive, with Codex's own
// approvals and sandbox off because warden's sandbox is the isolation. A further message is a
// new run that resumes the session: `codex exec resume --json ... -- <session id> -`.
//
// Neither the prompt nor a message is ever an argument: each goes to stdin, which `-` names, so
// text that starts with `-` can never be read as an option and a long prompt meets no argv
// limit. Every other value is inside its own `--name=value` argument.
import { AGENT_PROFILES } from "../../protocol/index.js";
import type { AgentLaunch } from "../adapter.js";
import { checkBaseUrl, checkProgram, checkSessionId, modelArgs, refuse } from "../launchChecks.js";
import type { ResumingTask } from "../resumingTask.js";

/** The program when the task names none: found on the agent's PATH. */
export const CODEX_PROGRAM = AGENT_PROFILES.codex.program;

/** An environment variable's name. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/u;

/** The name of the model provider warden configures when the task goes through the API relay. */
export const CODEX_PROVIDER = "warden";

/** The variable that holds the (placeholder) API key when the task does not name one. */
export const CODEX_KEY_VARIABLE = "OPENAI_API_KEY";

/** What the Codex adapter needs of a task. */
export interface CodexTask extends ResumingTask {
  /**
   * The Responses API to talk to: its base URL, to which Codex adds `/responses` (warden's
   * relay root on loopback, whose upstream carries the `/v1`), and the variable that holds the
   * key the relay expects. Absent: Codex's own default.
   */
  readonly api?: { readonly baseUrl: string; readonly keyVariable?: string };
}

/** A TOML string for a `--config` value. JSON's escapes are TOML's basic-string escapes. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The options that point Codex at the API relay as a model provider of its own. */
function providerArgs(api: NonNullable<CodexTask["api"]>): string[] {
  checkBaseUrl("codex", api.baseUrl, "http://host:port/v1");
  const keyVariable = api.keyVariable ?? CODEX_KEY_VARIABLE;
  if (!ENV_NAME.test(keyVariable)) {
    refuse("codex", "the API key variable is not a variable name", "name it like OPENAI_API_KEY");
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
  const program = checkProgram("codex", task.agentProgram, CODEX_PROGRAM);
  const options = [
    "--json",
    // The workspace is a git repository, but the check is Codex's business, not warden's.
    "--skip-git-repo-check",
    // Nobody is there to approve, and warden's sandbox bounds what a command can reach.
    "--dangerously-bypass-approvals-and-sandbox",
    ...modelArgs("codex", task.model, "gpt-5-codex"),
  ];
  if (task.api !== undefined) options.push(...providerArgs(task.api));
  if (task.resume === undefined) {
    // `-`: the prompt is on stdin. After `--`, nothing can be read as an option.
    return { argv: [program, "exec", ...options, "--", "-"], env: {}, stdin: task.prompt };
  }
  const { sessionId, message } = task.resume;
  checkSessionId("codex", sessionId);
  return {
    argv: [program, "exec", "resume", ...options, "--", sessionId, "-"],
    env: {},
    stdin: message,
  };
}
