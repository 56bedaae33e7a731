// The runner's command line. Every sandbox backend starts the runner the same way, so each
// place (share, workspace, scratch) comes from a flag or, failing that, from the environment.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { errorMessage } from "../lang/index.js";
import { cleanLine, GUEST_SOCKETS_ENV } from "../protocol/index.js";
import { GUEST_CHANNEL_LIMITS } from "./limits.js";
import { UsageError } from "./errors.js";

/** Where the read-only task share is mounted when nothing says otherwise. */
export const DEFAULT_SHARE = "/share";
/** The empty, writable directory the repository is cloned into. */
export const DEFAULT_WORKSPACE = "/workspace";
/** Between SIGTERM and SIGKILL: long enough for an agent to save its state, as DESIGN.md says. */
export const DEFAULT_KILL_GRACE_MS = 10_000;
/** A grace longer than this is a typo; the host has its own deadline anyway. */
export const MAX_KILL_GRACE_MS = 10 * 60_000;

/** The environment variables the runner reads; a flag wins over its variable. */
export const GUEST_ENV = {
  share: "WARDEN_GUEST_SHARE",
  workspace: "WARDEN_GUEST_WORKSPACE",
  scratch: "WARDEN_GUEST_SCRATCH",
  ownPidNamespace: "WARDEN_GUEST_OWN_PID_NAMESPACE",
  agentEnv: "WARDEN_GUEST_AGENT_ENV",
  sockets: GUEST_SOCKETS_ENV,
  egressPorts: "WARDEN_GUEST_EGRESS_PORTS",
  channelTimeoutMs: "WARDEN_GUEST_CHANNEL_TIMEOUT_MS",
} as const;

/** Where the egress forwarders listen: the fixed ports of DESIGN.md, or any free ones. */
export type EgressPorts = "fixed" | "any";

export interface GuestOptions {
  /** The task share: task.json, prompt.md, input.bundle. Read only. */
  readonly share: string;
  /** The empty directory the repository is cloned into; the agent's cwd. */
  readonly workspace: string;
  /** Where the transcript, the agent log and the bundle are made; undefined = a fresh temp dir. */
  readonly scratch: string | undefined;
  /** The metadata server's loopback port; 0 = any free port. */
  readonly metadataPort: number;
  /** The sandbox gives the runner a PID namespace of its own, so it may kill every other process. */
  readonly ownPidNamespace: boolean;
  /** Between SIGTERM and SIGKILL when the agent or what it left behind is stopped. */
  readonly killGraceMs: number;
  /** Names of the runner's own environment variables passed on to the agent (proxy, API base). */
  readonly agentEnv: readonly string[];
  /** The directory of the host's egress sockets (proxy.sock, relay.sock); undefined = no egress. */
  readonly sockets: string | undefined;
  /** The loopback ports the egress forwarders take. */
  readonly egressPorts: EgressPorts;
  /** How long the host may take to answer a request on the channel (approvals excepted). */
  readonly channelTimeoutMs: number;
  /**
   * Time the runner's phases and print them as one `trace` line on stderr before exiting. A
   * hidden flag: the host passes it when WARDEN_TRACE asks it to trace a task.
   */
  readonly tracePhases?: boolean;
}

export type Invocation =
  { readonly kind: "run"; readonly options: GuestOptions } | { readonly kind: "help" };

export const USAGE = `Usage: warden-guest [options]

Runs one warden task inside a sandbox: clones the task's input bundle into the
workspace, starts the agent with the prompt, stops it at its timeout, commits what
it left uncommitted, and writes the results to stdout as a tar archive whose last
entry is result.json. Progress goes to stderr as plain lines.

Options (each flag wins over its environment variable):
  --share DIR           the read-only task share with task.json, prompt.md and
                        input.bundle [$${GUEST_ENV.share}, default ${DEFAULT_SHARE}]
  --workspace DIR       the empty, writable directory to clone into; the agent's
                        working directory [$${GUEST_ENV.workspace}, default ${DEFAULT_WORKSPACE}]
  --scratch DIR         where the transcript, agent log and bundle are made; never
                        inside the workspace [$${GUEST_ENV.scratch}, default a new
                        directory under the system temp dir]
  --metadata-port N     loopback port of the metadata server [default 0: any free port]
  --own-pid-namespace   the sandbox gives the runner a PID namespace of its own, so
                        after the agent every other process in it is killed
                        [$${GUEST_ENV.ownPidNamespace}=1]
  --kill-grace-ms N     between SIGTERM and SIGKILL [default ${DEFAULT_KILL_GRACE_MS}]
  --agent-env NAME      pass the runner's variable NAME on to the agent; repeatable
                        [$${GUEST_ENV.agentEnv}, names separated by commas]
  --sockets DIR         the directory of the host's sockets (proxy.sock, relay.sock,
                        control.sock); the runner forwards loopback ports to the
                        first two, gives the agent HTTPS_PROXY and ANTHROPIC_BASE_URL,
                        and reports to the host over the last
                        [$${GUEST_ENV.sockets}; none: the agent has no network]
  --channel-timeout-ms N
                        how long the host may take to answer on control.sock before
                        the runner goes on without it (approvals wait for a person)
                        [$${GUEST_ENV.channelTimeoutMs}, default ${GUEST_CHANNEL_LIMITS.requestMs}]
  --egress-ports MODE   fixed (127.0.0.1:3128 proxy, :3129 relay) or any (free
                        ports, where the sandbox shares the host's network)
                        [$${GUEST_ENV.egressPorts}, default fixed]
  -h, --help            print this help

Exit status: 0 when every step ran (whatever the agent's own exit code), 1 when a
step failed (an archive with the error in result.json is still sent whenever
stdout works), 2 for a usage error (nothing runs, nothing is sent).
`;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function integer(text: string, flag: string, max: number): number {
  if (!/^[0-9]+$/.test(text) || Number(text) > max) {
    throw new UsageError(`${flag} wants a whole number from 0 to ${max}, not ${cleanLine(text)}`);
  }
  return Number(text);
}

function envFlag(value: string | undefined, name: string): boolean {
  if (value === undefined || value === "" || value === "0") return false;
  if (value === "1") return true;
  throw new UsageError(`${name} must be 1 or 0, not ${cleanLine(value)}`);
}

function directory(value: string | undefined, fallback: string | undefined): string | undefined {
  const chosen = value === undefined || value === "" ? fallback : value;
  return chosen === undefined ? undefined : resolve(chosen);
}

function egressPorts(value: string | undefined): EgressPorts {
  if (value === undefined || value === "" || value === "fixed") return "fixed";
  if (value === "any") return "any";
  throw new UsageError(`--egress-ports wants fixed or any, not ${cleanLine(value)}`);
}

function channelTimeout(value: string | undefined): number {
  if (value === undefined || value === "") return GUEST_CHANNEL_LIMITS.requestMs;
  const ms = integer(value, "--channel-timeout-ms", GUEST_CHANNEL_LIMITS.maxRequestMs);
  if (ms === 0) throw new UsageError("--channel-timeout-ms must be more than 0");
  return ms;
}

/** Reads the command line and the environment into options. Pure; throws UsageError. */
export function parseOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Invocation {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        share: { type: "string" },
        workspace: { type: "string" },
        scratch: { type: "string" },
        "metadata-port": { type: "string" },
        "own-pid-namespace": { type: "boolean" },
        "kill-grace-ms": { type: "string" },
        "agent-env": { type: "string", multiple: true },
        sockets: { type: "string" },
        "egress-ports": { type: "string" },
        "channel-timeout-ms": { type: "string" },
        trace: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError(cleanLine(errorMessage(error)));
  }
  if (values.help === true) return { kind: "help" };

  const agentEnv = [
    ...(env[GUEST_ENV.agentEnv] ?? "").split(",").filter((name) => name !== ""),
    ...(values["agent-env"] ?? []),
  ];
  for (const name of agentEnv) {
    if (!ENV_NAME.test(name)) {
      throw new UsageError(`${cleanLine(name)} is not an environment variable name`);
    }
  }

  const share = directory(values.share ?? env[GUEST_ENV.share], DEFAULT_SHARE) ?? DEFAULT_SHARE;
  const workspace =
    directory(values.workspace ?? env[GUEST_ENV.workspace], DEFAULT_WORKSPACE) ?? DEFAULT_WORKSPACE;
  return {
    kind: "run",
    options: {
      share,
      workspace,
      scratch: directory(values.scratch ?? env[GUEST_ENV.scratch], undefined),
      metadataPort:
        values["metadata-port"] === undefined
          ? 0
          : integer(values["metadata-port"], "--metadata-port", 65535),
      ownPidNamespace:
        values["own-pid-namespace"] === true ||
        envFlag(env[GUEST_ENV.ownPidNamespace], GUEST_ENV.ownPidNamespace),
      killGraceMs:
        values["kill-grace-ms"] === undefined
          ? DEFAULT_KILL_GRACE_MS
          : integer(values["kill-grace-ms"], "--kill-grace-ms", MAX_KILL_GRACE_MS),
      agentEnv: [...new Set(agentEnv)],
      sockets: directory(values.sockets ?? env[GUEST_ENV.sockets], undefined),
      egressPorts: egressPorts(values["egress-ports"] ?? env[GUEST_ENV.egressPorts]),
      channelTimeoutMs: channelTimeout(
        values["channel-timeout-ms"] ?? env[GUEST_ENV.channelTimeoutMs],
      ),
      ...(values.trace === true ? { tracePhases: true } : {}),
    },
  };
}
