// The checks of an attach that need no lock: the task is the host's, its sandbox can run here,
// the runner is built, every --env variable is set, the agent's program is here, the API key is
// here for an agent that needs one, and a task that asks a person has a way to ask. A refusal
// here leaves the task as it was.
import { homedir } from "node:os";
import {
  keyVariablesText,
  RELAY_APIS,
  relaySettingsFromEnv,
  type RelayHostSettings,
} from "../egress/index.js";
import { AGENT_PROFILES, cleanLine, type AgentName } from "../protocol/index.js";
import {
  sandboxBackend,
  SandboxCheckMemo,
  SandboxUnavailableError,
  type SandboxBackend,
  type SandboxBackendOptions,
  type SandboxName,
} from "../sandbox/index.js";
import type { Tasks, TaskSpec } from "../store/index.js";
import { findAgentProgram, type AgentProgram } from "./agentProgram.js";
import { agentVariables } from "./agentVariables.js";
import { setupVariables } from "./setupPlan.js";
import { parseToolRules, type ApprovalRules, type ApprovePolicy } from "./channel/index.js";
import {
  AgentMissingError,
  AgentUnusableError,
  ApprovalUnavailableError,
  cannotShowProgram,
  installHint,
  NoApiKeyError,
  NotAHostTaskError,
  noHostSettings,
} from "./errors.js";
import { HOST_LIMITS } from "./limits.js";
import { keptSandboxChecks } from "./keptSandboxChecks.js";
import { guestProgram, type GuestProgram } from "./guestProgram.js";
import { readHostSettings, type HostSettings } from "./hostSettings.js";

/** What is checked before the task is attached, so that a refusal leaves the task as it was. */
export interface Preflight {
  host: HostSettings;
  spec: TaskSpec & { repo: string; base: string };
  backend: SandboxBackend;
  runner: GuestProgram;
  variables: Record<string, string>;
  relay: RelayHostSettings | undefined;
  /** The values of the setup's variables (--setup-env), given to setup alone over the channel. */
  setupVariables: Record<string, string>;
  /** The agent's program and what to bind for it; undefined for the `command` agent. */
  program: AgentProgram | undefined;
  approval: ApprovalPlan;
}

/** How this attach answers permission prompts. */
export interface ApprovalPlan {
  policy: ApprovePolicy;
  rules: ApprovalRules;
  timeoutMs: number;
}

/** The API relay for a task's agent: refuses an agent whose API has no key on this host. */
export function relayFor(
  agent: AgentName,
  env: Readonly<Record<string, string | undefined>>,
): RelayHostSettings | undefined {
  const api = AGENT_PROFILES[agent].api;
  const relay = relaySettingsFromEnv(env, api ?? "anthropic");
  if (api !== undefined && relay === undefined) {
    const keys = RELAY_APIS[api].keys;
    const missing =
      keys.length === 1
        ? `${keyVariablesText(api)} is not`
        : `neither ${keyVariablesText(api).replace(" or ", " nor ")} is`;
    throw new NoApiKeyError(`the ${agent} agent needs an API key, and ${missing} set here`, {
      hint: `set ${keys[0].variable} in the environment that runs the task; it stays on the host, the sandbox gets a placeholder`,
    });
  }
  return relay;
}

/**
 * Sandboxes that carry the guest-to-host channel (control.sock beside the egress sockets):
 * only through it can an agent's permission prompt reach a person.
 */
export const CHANNEL_SANDBOXES: ReadonlySet<SandboxName> = new Set(["bwrap", "none"]);

/** The approval plan of a task; refuses `prompt` where the sandbox carries no channel. Pure. */
export function approvalPlan(host: HostSettings, sandbox: SandboxName): ApprovalPlan {
  const policy = host.guest.approve ?? "always";
  if (policy === "prompt" && !CHANNEL_SANDBOXES.has(sandbox)) {
    throw new ApprovalUnavailableError(
      `approve is "prompt", but the ${sandbox} sandbox has no channel to ask the host through`,
    );
  }
  const approval = host.approval;
  return {
    policy,
    rules: {
      allow: parseToolRules(approval?.allow ?? [], "--allow-tool"),
      deny: parseToolRules(approval?.deny ?? [], "--deny-tool"),
    },
    timeoutMs:
      approval?.timeoutSeconds === undefined
        ? HOST_LIMITS.approvalTimeoutMs
        : approval.timeoutSeconds * 1000,
  };
}

/** The agent's program, for an agent that has one; refuses one that is missing or unusable. */
function agentProgram(
  host: HostSettings,
  env: Readonly<Record<string, string | undefined>>,
): AgentProgram | undefined {
  const agent = host.guest.agent;
  const name = AGENT_PROFILES[agent].program;
  if (name === undefined) return undefined;
  const configured = host.guest.agentProgram;
  const program = findAgentProgram(agent, configured, env);
  if (program === undefined) {
    throw new AgentMissingError(
      configured === undefined
        ? `the ${agent} agent's program ${name} is not on PATH, nor in warden's node_modules`
        : `the ${agent} agent's program ${cleanLine(configured)} is not an executable file`,
      { hint: installHint(agent, name) },
    );
  }
  const exposing = homeExposingBind(program.binds, homedir());
  if (exposing !== undefined) {
    throw new AgentUnusableError(
      cannotShowProgram(
        exposing,
        "binding it into the sandbox would show the sandbox your whole home directory",
      ),
      {
        hint: "install the agent in a directory of its own (npm install -g puts it under the npm prefix)",
      },
    );
  }
  return program;
}

/**
 * The bind, if any, that is the home directory or holds it. A program inside the home is bound
 * alone (its file, or its package), which shows the sandbox nothing else of the home; a bind of
 * the home itself, or of a directory above it, would show it all. Pure.
 */
export function homeExposingBind(binds: readonly string[], home: string): string | undefined {
  if (home === "" || home === "/") return binds.find((bind) => bind === "/");
  return binds.find((bind) => bind === home || home.startsWith(bind === "/" ? "/" : `${bind}/`));
}

/** What the checks of a launch find: everything of the preflight but the task's spec. */
export type LaunchChecks = Omit<Preflight, "spec">;

/**
 * The checks that need only a task's settings and this host: the sandbox, the runner, the --env
 * values, the API key, the agent's program, the approval plan. `run` and `create` make them
 * before a task is written, so a refusal leaves no task behind; every attach makes them again,
 * as the environment that starts a task may differ from the one that made it.
 */
export async function checkLaunch(
  host: HostSettings,
  env: Readonly<Record<string, string | undefined>>,
  options: { sandboxOptions?: SandboxBackendOptions; dataDir?: string },
): Promise<LaunchChecks> {
  const backend = sandboxBackend(host.sandbox, options.sandboxOptions);
  const approval = approvalPlan(host, backend.name);
  // Without a memo of the caller's, a pass another process kept in the data directory serves
  // (the background run of `run --detach`, `start` soon after `create`).
  const checks =
    options.sandboxOptions?.checks ??
    (options.dataDir === undefined
      ? undefined
      : new SandboxCheckMemo({ passes: keptSandboxChecks(options.dataDir) }));
  const check = await (checks?.check(backend) ?? backend.check());
  if (!check.ok) {
    throw new SandboxUnavailableError(
      `the sandbox ${host.sandbox} cannot run here: ${cleanLine(check.why)}`,
      { hint: check.fix },
    );
  }
  await backend.checkBounds(host.limits ?? {});
  const relay = relayFor(host.guest.agent, env);
  return {
    host,
    backend,
    runner: guestProgram(env),
    variables: agentVariables(host.envNames, env),
    relay,
    program: agentProgram(host, env),
    approval,
    setupVariables: setupVariables(host, env),
  };
}

export async function preflight(
  tasks: Tasks,
  id: string,
  env: Readonly<Record<string, string | undefined>>,
  options: { sandboxOptions?: SandboxBackendOptions },
): Promise<Preflight> {
  const { spec } = await tasks.get(id);
  const host = readHostSettings(id, spec.settings);
  const { repo, base } = spec;
  if (repo === undefined || base === undefined) {
    throw new NotAHostTaskError(noHostSettings(id, "its spec names no repository or start commit"));
  }
  return {
    ...(await checkLaunch(host, env, { ...options, dataDir: tasks.dataDir })),
    spec: { ...spec, repo, base },
  };
}
