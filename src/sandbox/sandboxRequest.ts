// What the host asks of a sandbox, whichever backend runs it, and the checks every backend makes.
import { posix } from "node:path";
import type { PhaseTrace } from "../lang/index.js";
import { BadSandboxRequestError } from "./errors.js";
import { SANDBOX_LIMITS } from "./limits.js";
import { SANDBOX_PATHS } from "./sandboxPaths.js";

/** A host unix socket the runner may connect to, as `<sockets dir>/<name>.sock`. */
export interface SandboxSocket {
  /** The socket on the host (absolute). */
  path: string;
  /** A short lowercase name: `egress`, `relay`, `host`. */
  name: string;
}

/**
 * Resource bounds. Absent means the default bound (SANDBOX_LIMITS.defaults); 0 means none, which
 * only the user may ask for.
 */
export interface SandboxLimits {
  /** All memory of every process in the sandbox together, tmpfs pages included. */
  memoryBytes?: number;
  /** How many processes may exist at once; the kernel counts each thread as one. */
  processes?: number;
  /** The workspace's size on the host's disk. */
  diskBytes?: number;
}

/** The bounds in force: a field is absent exactly when the user asked for no such bound. */
export type ActiveLimits = SandboxLimits;

export interface SandboxRequest {
  /** Names the sandbox's temporary directories and cgroups: letters, digits, `-` and `_`. */
  taskId: string;
  /** Host directory with task.json, prompt.md and input.bundle; read-only inside. */
  share: string;
  /** Host directory, empty; the one writable host directory inside. */
  workspace: string;
  sockets: readonly SandboxSocket[];
  /** The runner; a backend appends the flags that say where things are (RUNNER_FLAGS). */
  runner: { program: string; args: readonly string[] };
  /** Further host paths the agent needs (its binary, its package), read-only at the same path. */
  readOnlyBinds: readonly string[];
  /** What the runner gets on top of a clean minimal environment; nothing else of the host's. */
  env: Readonly<Record<string, string>>;
  limits: SandboxLimits;
  /** Times the steps of the start (WARDEN_TRACE), for a backend whose start has steps to time. */
  trace?: PhaseTrace;
}

/** The facts of the host that the checks depend on, so that the checks stay pure. */
export interface RequestHost {
  /** The home directory of the user warden runs as: never visible inside a sandbox. */
  home: string;
}

const TASK_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const SOCKET_NAME = /^[a-z][a-z0-9-]{0,31}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Host paths whose contents a sandbox must never see, even read-only. */
const SECRET_PATHS = ["/etc", "/root", "/home", "/var", "/run", "/boot", "/proc", "/sys", "/dev"];
/** Host trees that are never bound whole or in part: the sandbox has its own. */
const KERNEL_TREES = ["/proc", "/sys", "/dev"];
/** Paths inside the sandbox that the backend owns; a bind there would hide or replace them. */
const RESERVED_INSIDE = [
  SANDBOX_PATHS.share,
  SANDBOX_PATHS.workspace,
  SANDBOX_PATHS.sockets,
  SANDBOX_PATHS.scratch,
  "/etc",
];

/** True when `ancestor` is `path` or a directory above it. Both are normalized and absolute. */
export function isSameOrUnder(path: string, ancestor: string): boolean {
  if (ancestor === "/") return true;
  return path === ancestor || path.startsWith(ancestor + "/");
}

function isCleanAbsolute(path: string): boolean {
  return (
    posix.isAbsolute(path) &&
    !path.includes("\0") &&
    posix.normalize(path) === path &&
    (path === "/" || !path.endsWith("/"))
  );
}

function refuse(message: string, hint: string): never {
  throw new BadSandboxRequestError(message, { hint });
}

function checkHostDir(what: string, path: string, host: RequestHost): void {
  if (!isCleanAbsolute(path)) {
    refuse(
      `the ${what} path ${JSON.stringify(path)} is not a clean absolute path`,
      "pass an absolute path without `.`, `..` or a trailing slash",
    );
  }
  if (isSameOrUnder(host.home, path) || SECRET_PATHS.some((p) => isSameOrUnder(p, path))) {
    refuse(
      `the ${what} ${path} would expose the host's home or system files to the sandbox`,
      `give the sandbox a directory of its own, e.g. under the task's directory`,
    );
  }
  if (KERNEL_TREES.some((p) => isSameOrUnder(path, p))) {
    refuse(`the ${what} ${path} is inside a kernel file system`, "use an ordinary directory");
  }
}

function checkLimit(what: string, value: number | undefined, min: number): void {
  if (value === undefined || value === 0) return;
  if (!Number.isSafeInteger(value) || value < min) {
    refuse(
      `the ${what} limit ${value} is not a whole number of at least ${min}`,
      `use 0 for no limit, or at least ${min}`,
    );
  }
}

/**
 * Refuses a request no backend may run. Pure: every backend's plan step calls it first, so a
 * plan is only ever made from a request that passed.
 */
export function checkRequest(request: SandboxRequest, host: RequestHost): void {
  if (!TASK_ID.test(request.taskId)) {
    refuse(
      `the task id ${JSON.stringify(request.taskId)} cannot name a sandbox`,
      "use letters, digits, `-` and `_`, at most 64",
    );
  }
  checkHostDir("share", request.share, host);
  checkHostDir("workspace", request.workspace, host);
  if (
    isSameOrUnder(request.share, request.workspace) ||
    isSameOrUnder(request.workspace, request.share)
  ) {
    refuse("the share and the workspace overlap", "use two separate directories");
  }
  const names = new Set<string>();
  for (const socket of request.sockets) {
    if (!SOCKET_NAME.test(socket.name)) {
      refuse(
        `the socket name ${JSON.stringify(socket.name)} is not a short lowercase name`,
        "use lowercase letters, digits and `-`, at most 32",
      );
    }
    if (names.has(socket.name))
      refuse(`the socket name ${socket.name} is given twice`, "name each socket once");
    names.add(socket.name);
    if (!isCleanAbsolute(socket.path)) {
      refuse(
        `the socket path ${JSON.stringify(socket.path)} is not a clean absolute path`,
        "pass the socket's absolute path",
      );
    }
  }
  if (request.runner.program === "" || request.runner.program.includes("\0")) {
    refuse("the runner's program is empty or has a NUL byte", "pass the runner's executable");
  }
  if (request.runner.args.some((a) => a.includes("\0"))) {
    refuse("an argument of the runner has a NUL byte", "arguments are C strings: drop the NUL");
  }
  for (const bind of request.readOnlyBinds) {
    if (!isCleanAbsolute(bind)) {
      refuse(
        `the bind ${JSON.stringify(bind)} is not a clean absolute path`,
        "pass an absolute path without `.`, `..` or a trailing slash",
      );
    }
    if (isSameOrUnder(host.home, bind) || SECRET_PATHS.some((p) => isSameOrUnder(p, bind))) {
      refuse(
        `binding ${bind} would expose the host's home or system files to the sandbox`,
        "bind only the agent's own files, e.g. its binary or its package directory",
      );
    }
    if (
      KERNEL_TREES.some((p) => isSameOrUnder(bind, p)) ||
      RESERVED_INSIDE.some((p) => isSameOrUnder(bind, p))
    ) {
      refuse(
        `binding ${bind} would cover a path the sandbox itself provides`,
        `bind nothing under ${[...KERNEL_TREES, ...RESERVED_INSIDE].join(", ")}`,
      );
    }
  }
  for (const [name, value] of Object.entries(request.env)) {
    if (!ENV_NAME.test(name))
      refuse(
        `the environment name ${JSON.stringify(name)} is not a valid name`,
        "use letters, digits and `_`, not starting with a digit",
      );
    if (value.includes("\0"))
      refuse(`the environment variable ${name} has a NUL byte`, "drop the NUL byte");
  }
  checkLimit("memory", request.limits.memoryBytes, SANDBOX_LIMITS.minMemoryBytes);
  checkLimit("process", request.limits.processes, SANDBOX_LIMITS.minProcesses);
  checkLimit("disk", request.limits.diskBytes, SANDBOX_LIMITS.minDiskBytes);
}

/** The bounds in force: the default where none was given, nothing where 0 was. */
export function activeLimits(limits: SandboxLimits): ActiveLimits {
  const out: ActiveLimits = {};
  for (const key of ["memoryBytes", "processes", "diskBytes"] as const) {
    const value = limits[key] ?? SANDBOX_LIMITS.defaults[key];
    if (value > 0) out[key] = value;
  }
  return out;
}
