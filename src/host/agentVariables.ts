// The variables the user passes into the agent with --env NAME: names checked when the task is
// made, values read from the environment of the process that runs it, at each attach.
import { cleanLine, ENV } from "../protocol/index.js";
import { BadEnvNameError, MissingEnvError } from "./errors.js";
import { ENV_NAME } from "./hostSettings.js";

/**
 * Names warden sets itself inside the sandbox, or that would carry the real API key in: the
 * relay keeps the key on the host, and passing it in with --env would undo that.
 */
const RESERVED = new Set<string>([
  ...Object.values(ENV),
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "ANTHROPIC_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GEMINI_BASE_URL",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "https_proxy",
  "http_proxy",
  "NO_PROXY",
  "no_proxy",
  "PATH",
  "HOME",
  "TMPDIR",
]);

/** The runner's own variables, which no --env name may pose as. */
const RESERVED_PREFIXES = ["WARDEN_"];

/** Checks --env names: valid, not warden's own, each once. Pure; throws BadEnvNameError. */
export function checkEnvNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const name of names) {
    if (!ENV_NAME.test(name))
      throw new BadEnvNameError(`--env ${cleanLine(name)}: not a variable name`);
    if (RESERVED.has(name) || RESERVED_PREFIXES.some((p) => name.toUpperCase().startsWith(p))) {
      throw new BadEnvNameError(`--env ${cleanLine(name)}: warden sets this variable itself`);
    }
    seen.add(name);
  }
  return [...seen];
}

/** The values of the named variables in `env`. Throws MissingEnvError for one that is not set. */
export function agentVariables(
  names: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value === undefined) {
      throw new MissingEnvError(`the task passes the variable ${name} in, but it is not set here`, {
        hint: `set ${name} in the environment of the process that starts the task`,
      });
    }
    out[name] = value;
  }
  return out;
}
