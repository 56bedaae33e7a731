// The agent's environment, built from nothing: the runner's own environment may carry what a
// sandbox backend set for the runner alone, so only what is named here reaches the agent.
import { ENV, type Settings } from "../protocol/index.js";

/**
 * A random value per run that the runner puts into the agent's environment. Every process the
 * agent starts inherits it unless it clears it, which is how the runner finds the agent's
 * daemons when it has no PID namespace of its own.
 */
export const RUN_MARKER_VAR = "WARDEN_GUEST_RUN";

/** PATH when the runner itself has none: the usual places on a Linux image. */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The locale when the runner has none: UTF-8 without depending on installed locales. */
export const DEFAULT_LANG = "C.UTF-8";

/** Variables of the runner's own environment the agent always gets when they are set. */
export const INHERITED_VARS = ["PATH", "HOME", "LANG", "LC_ALL", "TZ", "USER", "LOGNAME"] as const;

export interface AgentEnvironmentInput {
  /** The runner's own environment. */
  readonly runner: Readonly<Record<string, string | undefined>>;
  /** Further names of the runner's variables to pass on (--agent-env). */
  readonly pass: readonly string[];
  /** What the agent's adapter asks for. */
  readonly adapter: Readonly<Record<string, string>>;
  readonly settings: Settings;
  /** The proxy and relay variables for the ports the runner's forwarders took. */
  readonly egress: Readonly<Record<string, string>>;
  readonly metadataUrl: string;
  /** The agent's own temporary directory, outside the workspace. */
  readonly tmpdir: string;
  /** The value of RUN_MARKER_VAR for this run. */
  readonly marker: string;
  /** HOME when the runner has none. */
  readonly fallbackHome: string;
}

/** The names only the runner sets: nothing passed on or asked for may pose as one of them. */
const RUNNER_ONLY = new Set<string>([...Object.values(ENV), RUN_MARKER_VAR]);

/**
 * Pure. Later entries win: the adapter's variables, then the runner's inherited and passed
 * ones, then the host's (settings.env: the placeholder key, what the user passed in), then the
 * egress variables for the ports really in use, then the environment protocol and the run
 * marker, which nothing can override.
 */
export function agentEnvironment(input: AgentEnvironmentInput): Record<string, string> {
  const env = new Map<string, string>(Object.entries(input.adapter));
  for (const name of [...INHERITED_VARS, ...input.pass]) {
    const value = input.runner[name];
    if (value !== undefined) env.set(name, value);
  }
  for (const [name, value] of Object.entries(input.settings.env ?? {})) env.set(name, value);
  for (const [name, value] of Object.entries(input.egress)) env.set(name, value);
  if (!env.has("PATH")) env.set("PATH", DEFAULT_PATH);
  if (!env.has("HOME")) env.set("HOME", input.fallbackHome);
  if (!env.has("LANG")) env.set("LANG", DEFAULT_LANG);
  env.set("TMPDIR", input.tmpdir);
  for (const name of RUNNER_ONLY) env.delete(name);

  const { taskId, parentTaskId, hop } = input.settings;
  if (taskId !== undefined) env.set(ENV.taskId, taskId);
  if (parentTaskId !== undefined) env.set(ENV.parentTaskId, parentTaskId);
  if (hop !== undefined && hop !== 0) env.set(ENV.hop, String(hop));
  env.set(ENV.metadataUrl, input.metadataUrl);
  env.set(RUN_MARKER_VAR, input.marker);
  return Object.fromEntries(env);
}
