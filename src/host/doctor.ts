// What `warden doctor` reports: whether this machine can run tasks, and what to fix if not.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import {
  AGENT_PROFILES,
  AGENTS,
  cleanLine,
  WardenError,
  type AgentName,
} from "../protocol/index.js";
import { checkBackends, DEFAULT_SANDBOX, type BackendReport } from "../sandbox/index.js";
import {
  API_KINDS,
  checkApi,
  keyVariablesText,
  relaySettingsFromEnv,
  type ApiCheck,
} from "../egress/index.js";
import { findAgentProgram, programVersion, type AgentProgram } from "./agentProgram.js";
import { GUEST_MAIN } from "./guestProgram.js";

const run = promisify(execFile);

/** Node.js 20.12 brought the APIs warden needs (fs.glob is not one; import.meta.dirname is). */
export const MIN_NODE = [20, 12, 0] as const;
/** git 2.29 brought `fetch --no-write-fetch-head`, which every fetch of warden's uses. */
export const MIN_GIT = [2, 29, 0] as const;

export type Check =
  | { name: string; ok: true; detail: string }
  | { name: string; ok: false; why: string; fix: string };

export interface AgentReport {
  name: AgentName;
  usable: boolean;
  detail: string;
  /** The program a task would run, symlinks resolved, and its `--version` line. */
  path?: string;
  version?: string;
  /** For an agent that calls a model API: whether its key is in this environment. */
  apiKey?: "set" | "missing";
}

export interface DoctorReport {
  /** Whether a task can run here with the default sandbox. */
  ready: boolean;
  checks: Check[];
  backends: BackendReport[];
  agents: AgentReport[];
}

function parseVersion(text: string): number[] | undefined {
  const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

function atLeast(version: readonly number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    const v = version[i] ?? 0;
    const m = min[i] ?? 0;
    if (v !== m) return v > m;
  }
  return true;
}

function checkNode(): Check {
  const version = parseVersion(process.versions.node) ?? [0, 0, 0];
  const detail = `Node.js ${process.versions.node}`;
  return atLeast(version, MIN_NODE)
    ? { name: "node", ok: true, detail }
    : {
        name: "node",
        ok: false,
        why: `${detail} is older than ${MIN_NODE.join(".")}`,
        fix: "install Node.js 20.12 or newer",
      };
}

async function checkGit(): Promise<Check> {
  try {
    const { stdout } = await run("git", ["--version"], { timeout: 10_000 });
    const version = parseVersion(stdout);
    const detail = cleanLine(stdout.trim());
    if (version !== undefined && atLeast(version, MIN_GIT))
      return { name: "git", ok: true, detail };
    return {
      name: "git",
      ok: false,
      why: `${detail} is older than ${MIN_GIT.join(".")}`,
      fix: "install a newer git",
    };
  } catch {
    return { name: "git", ok: false, why: "git is not installed", fix: "apt-get install git" };
  }
}

function checkRunner(): Check {
  return existsSync(GUEST_MAIN)
    ? { name: "runner", ok: true, detail: GUEST_MAIN }
    : {
        name: "runner",
        ok: false,
        why: `${GUEST_MAIN} is missing`,
        fix: "build warden: `npm run build`",
      };
}

const SOURCE_WORDS = {
  settings: "",
  path: " (on PATH)",
  package: " (warden's own dev dependency)",
} as const;

/**
 * One agent that runs a program of its own: found as a task would find it (Codex's launcher
 * resolved to its native program), and that program asked its version.
 */
async function programReport(name: AgentName, program: string): Promise<AgentReport> {
  let found: AgentProgram | undefined;
  try {
    found = findAgentProgram(name, undefined, process.env);
  } catch (error) {
    if (!(error instanceof WardenError)) throw error;
    const hint = error.hint === undefined ? "" : `: ${error.hint}`;
    return { name, usable: false, detail: `${error.message}${hint}` };
  }
  if (found === undefined) {
    return {
      name,
      usable: false,
      detail: `${program} is not on PATH: install it to use --agent ${name}, or pass --agent-program`,
    };
  }
  const version = await programVersion(found.path);
  if (version === undefined) {
    return {
      name,
      usable: false,
      path: found.path,
      detail: `${found.path} does not answer \`${program} --version\`: reinstall it`,
    };
  }
  return {
    name,
    usable: true,
    path: found.path,
    version,
    detail: `${version} at ${found.path}${SOURCE_WORDS[found.source]}`,
  };
}

/**
 * Every agent the settings may name, and whether it can run: `command` needs nothing more; an
 * agent with a program of its own needs it on this machine, answering `--version`.
 */
async function agentReports(): Promise<AgentReport[]> {
  return Promise.all(
    AGENTS.map(async (name: AgentName): Promise<AgentReport> => {
      const program = AGENT_PROFILES[name].program;
      if (program === undefined) {
        return { name, usable: true, detail: "runs the command given after `--`" };
      }
      return programReport(name, program);
    }),
  );
}

/**
 * Adds whether the agent's API key is here: its program may work while its tasks are still
 * refused for want of the key (NO_API_KEY), and doctor is where a user looks first.
 */
function withApiKey(
  report: AgentReport,
  env: Readonly<Record<string, string | undefined>>,
): AgentReport {
  const api = AGENT_PROFILES[report.name].api;
  if (api === undefined) return report;
  if (relaySettingsFromEnv(env, api) !== undefined) {
    return { ...report, apiKey: "set", detail: `${report.detail}; its API key is set` };
  }
  return {
    ...report,
    apiKey: "missing",
    detail: `${report.detail}; no API key here: set ${keyVariablesText(api)} to run its tasks`,
  };
}

export async function doctorReport(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<DoctorReport> {
  const [git, backends, reports] = await Promise.all([checkGit(), checkBackends(), agentReports()]);
  const agents = reports.map((report) => withApiKey(report, env));
  const checks = [checkNode(), git, checkRunner()];
  const sandboxOk = backends.some((b) => b.name === DEFAULT_SANDBOX && b.ok);
  return {
    ready: sandboxOk && checks.every((c) => c.ok),
    checks,
    backends,
    agents,
  };
}

/**
 * `doctor --check-api`: one cheap authenticated request (the model listing) to every API whose
 * key is set here, to the upstream a task's relay would use. The APIs run at once; an API
 * without a key is not asked. Empty when no key is set at all.
 */
export async function apiChecks(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ApiCheck[]> {
  const configured = API_KINDS.flatMap((api) => relaySettingsFromEnv(env, api) ?? []);
  return Promise.all(configured.map((settings) => checkApi(settings)));
}

/** Every API's key variables in words, for a hint: `A or B; C; D or E`. */
export function apiKeyVariablesText(): string {
  return API_KINDS.map((api) => keyVariablesText(api)).join("; ");
}
