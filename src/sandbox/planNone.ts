// The none plan: the runner as a plain child of the host, said loudly to be unisolated.
import { join } from "node:path";
import type { SandboxCommand } from "./sandboxCommand.js";
import { RUNNER_ENV, RUNNER_FLAGS } from "./sandboxPaths.js";
import {
  checkRequest,
  type SandboxLimits,
  type SandboxRequest,
  type SandboxSocket,
} from "./sandboxRequest.js";

export interface NoneHost {
  /** The host's directory for temporary files. */
  tmpDir: string;
  /** The home of the user warden runs as (checked against, never given to the runner). */
  home: string;
  /** The directory of the Node runtime, put first on the runner's PATH. */
  nodeDir: string;
}

export interface NonePlan {
  backend: "none";
  taskId: string;
  /**
   * The sandbox's own directory on the host, made fresh by start() and removed after the exit:
   * the runner's scratch, a home and a TMPDIR for the agent, and the socket links.
   */
  root: string;
  scratch: string;
  home: string;
  tmp: string;
  socketDir: string;
  /** Each becomes the link `<socketDir>/<name>.sock` to the host socket. */
  sockets: SandboxSocket[];
  env: Record<string, string>;
  cwd: string;
  command: { program: string; args: string[] };
  /**
   * The bounds the user asked for by name (not the defaults): never applied by this backend,
   * and start() says so in its warnings.
   */
  limits: SandboxLimits;
}

/**
 * The none backend's first warning. It is said once, in the warnings the host shows and records,
 * never also on the runner's stderr, where the host would show it a second time.
 */
export const NOT_ISOLATED_WARNING =
  "WARNING: sandbox `none`: the runner is NOT isolated. It runs as you, with your files, your " +
  "network and your processes in reach, and may outlive warden if warden is killed. Use it only " +
  "for development, with agents and repositories you trust.";

const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

function askedLimits(limits: SandboxLimits): SandboxLimits {
  return Object.fromEntries(
    Object.entries(limits).filter(([, value]) => typeof value === "number" && value > 0),
  );
}

export function planNone(request: SandboxRequest, host: NoneHost): NonePlan {
  checkRequest(request, host);
  const root = join(host.tmpDir, `warden-none-${request.taskId}`);
  const plan = {
    root,
    scratch: join(root, "scratch"),
    home: join(root, "home"),
    tmp: join(root, "tmp"),
    socketDir: join(root, "run"),
  };
  const args: string[] = [
    ...request.runner.args,
    RUNNER_FLAGS.share,
    request.share,
    RUNNER_FLAGS.workspace,
    request.workspace,
    RUNNER_FLAGS.scratch,
    plan.scratch,
  ];
  return {
    backend: "none",
    taskId: request.taskId,
    ...plan,
    sockets: request.sockets.map((s) => ({ ...s })),
    env: {
      PATH: `${host.nodeDir}:${SYSTEM_PATH}`,
      HOME: plan.home,
      TMPDIR: plan.tmp,
      LANG: "C.UTF-8",
      ...(request.sockets.length > 0
        ? { [RUNNER_ENV.sockets]: plan.socketDir, [RUNNER_ENV.egressPorts]: "any" }
        : {}),
      ...request.env,
    },
    cwd: request.workspace,
    command: { program: request.runner.program, args },
    limits: askedLimits(request.limits),
  };
}

export function renderNone(plan: NonePlan): SandboxCommand {
  return {
    program: plan.command.program,
    args: [...plan.command.args],
    env: { ...plan.env },
    cwd: plan.cwd,
    fds: [],
  };
}
