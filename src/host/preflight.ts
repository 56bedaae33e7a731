// The checks of an attach that need no lock: the task is the host's, its sandbox can run here,
// the runner is built, every --env variable is set. A refusal here leaves the task as it was.
import { relaySettingsFromEnv, type RelayHostSettings } from "../egress/index.js";
import {
  sandboxBackend,
  type SandboxBackend,
  type SandboxBackendOptions,
} from "../sandbox/index.js";
import type { Tasks, TaskSpec } from "../store/index.js";
import { agentVariables } from "./agentVariables.js";
import { BackendUnusableError, NotAHostTaskError } from "./errors.js";
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
    throw new NotAHostTaskError(id, "its spec names no repository or start commit");
  }
  const backend = sandboxBackend(host.sandbox, options.sandboxOptions);
  const check = await backend.check();
  if (!check.ok) throw new BackendUnusableError(host.sandbox, check.why, check.fix);
  return {
    host,
    spec: { ...spec, repo, base },
    backend,
    runner: guestProgram(env),
    variables: agentVariables(host.envNames, env),
    relay: relaySettingsFromEnv(env),
  };
}
