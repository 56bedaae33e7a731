// The bwrap plan: a pure function from a request and the host's layout to a typed sandbox.
import type { BwrapHost, SystemDir } from "./bwrapHost.js";
import { SandboxUnavailableError } from "./errors.js";
import { DENIED_SYSCALLS } from "./syscallTable.js";
import type { SeccompPlan } from "./seccompFilter.js";
import type { SandboxIdentity } from "./sandboxIdentity.js";
import { SANDBOX_LIMITS } from "./limits.js";
import { RUNNER_ENV, RUNNER_FLAGS, SANDBOX_PATHS, socketFileName } from "./sandboxPaths.js";
import {
  activeLimits,
  checkRequest,
  isSameOrUnder,
  type SandboxLimits,
  type SandboxRequest,
} from "./sandboxRequest.js";

/** One step of building the sandbox's file system, applied in order. */
export type BwrapMount =
  | { op: "tmpfs"; dest: string; mode: number; sizeBytes: number | null }
  | { op: "ro-bind"; src: string; dest: string }
  | { op: "bind"; src: string; dest: string }
  | { op: "symlink"; target: string; dest: string }
  | { op: "dir"; dest: string; mode: number }
  /** A read-only file whose contents the plan generates. */
  | { op: "data"; dest: string; mode: number; text: string }
  | { op: "proc"; dest: string }
  | { op: "dev"; dest: string }
  | { op: "remount-ro"; dest: string };

/**
 * How a root warden starts a sandbox as the dedicated uid. bubblewrap run by an ordinary user
 * resolves every bind source as that user, and the task's files sit in root's 0700 directories.
 * So a first, privileged bwrap makes a mount namespace holding only the system directories and
 * each bind source at STAGE_DIR/<n>; setpriv then drops to the sandbox's uid, and the sandbox's
 * own bwrap binds from there. Nothing of the sandbox ever runs as root.
 */
export interface BwrapStage {
  setpriv: string;
  /** coreutils' `timeout`, as a waiter between stage 1 and setpriv (see renderStage). */
  waiter: string;
  systemDirs: SystemDir[];
  binds: { src: string; at: string; writable: boolean }[];
}

/** What the host hands to the sandbox's uid before the start: owner set to the identity. */
export interface BwrapGrant {
  path: string;
  /** The share: its files too. The workspace and sockets: the entry itself. */
  recursive: boolean;
}

/** Where stage 1 shows the bind sources, inside its own mount namespace only. */
export const STAGE_DIR = "/stage";

/**
 * A bwrap sandbox. What never varies (every namespace unshared, no capabilities, die with the
 * parent, a new session, a cleared environment) is not a field: render always emits it.
 */
export interface BwrapPlan {
  backend: "bwrap";
  /** bwrap's path; "bwrap" when it was not found, which start() refuses. */
  bwrap: string;
  taskId: string;
  /** The uid and gid inside. */
  uid: number;
  gid: number;
  /** The host user those are. */
  identity: SandboxIdentity;
  /** Present exactly when the identity is a dedicated uid (warden runs as root). */
  stage: BwrapStage | null;
  /** Paths the sandbox's uid must own; empty when the sandbox is warden's own user. */
  grants: BwrapGrant[];
  /** Staged read-only sources the sandbox's uid must be able to read as any other user. */
  readable: string[];
  seccomp: SeccompPlan;
  hostname: string;
  mounts: BwrapMount[];
  env: Record<string, string>;
  cwd: string;
  command: { program: string; args: string[] };
  limits: SandboxLimits;
}

/** The sandbox's hostname: the host's name would tell an agent where it runs. */
const HOSTNAME = "warden";

/** The search path inside, before the Node runtime's directory is put in front when needed. */
const SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The user database inside: the sandbox user, and the two ids every system has. */
function passwdFile(uid: number, gid: number): string {
  return [
    "root:x:0:0:root:/root:/usr/sbin/nologin",
    `agent:x:${uid}:${gid}:warden agent:${SANDBOX_PATHS.home}:/bin/sh`,
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin",
    "",
  ].join("\n");
}

function groupFile(gid: number): string {
  return ["root:x:0:", `agent:x:${gid}:`, "nogroup:x:65534:", ""].join("\n");
}

/** Only loopback exists inside, so localhost is all there is to name. */
const HOSTS_FILE = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n";

/** Names come from the generated files only: there is no network to ask, and no host service. */
const NSSWITCH_FILE = [
  "passwd: files",
  "group: files",
  "shadow: files",
  "hosts: files",
  "networks: files",
  "protocols: files",
  "services: files",
  "",
].join("\n");

/** The environment every runner starts from inside bwrap; the request's env goes on top. */
export function bwrapBaseEnv(nodeDir: string): Record<string, string> {
  const onSystemPath = SYSTEM_PATH.split(":").includes(nodeDir);
  return {
    PATH: onSystemPath ? SYSTEM_PATH : `${nodeDir}:${SYSTEM_PATH}`,
    HOME: SANDBOX_PATHS.home,
    USER: "agent",
    LOGNAME: "agent",
    SHELL: "/bin/sh",
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
  };
}

/** The runner's command line: its own, then where things are inside the sandbox. */
function runnerCommand(request: SandboxRequest): { program: string; args: string[] } {
  const args = [
    ...request.runner.args,
    RUNNER_FLAGS.share,
    SANDBOX_PATHS.share,
    RUNNER_FLAGS.workspace,
    SANDBOX_PATHS.workspace,
    RUNNER_FLAGS.scratch,
    SANDBOX_PATHS.scratch,
    RUNNER_FLAGS.ownPidNamespace,
  ];
  return { program: request.runner.program, args };
}

/**
 * Host paths bound read-only at the same path: the Node runtime, warden's package, then the
 * request's binds. A path already inside a bound directory is left out, as is a second copy.
 */
function sharedBinds(request: SandboxRequest, host: BwrapHost): BwrapMount[] {
  const bound = host.systemDirs.filter((d) => d.kind === "dir").map((d) => d.path);
  const mounts: BwrapMount[] = [];
  for (const path of [host.nodeDir, ...host.packageFiles, ...request.readOnlyBinds]) {
    if (bound.some((b) => isSameOrUnder(path, b))) continue;
    bound.push(path);
    mounts.push({ op: "ro-bind", src: path, dest: path });
  }
  return mounts;
}

/**
 * Plans the sandbox: a fresh tmpfs root that holds only the system directories, a few /etc
 * files, the Node runtime, warden's package and the agent's binds, all read-only; the share
 * read-only at /share; the workspace writable at /workspace; tmpfs /tmp and home; the sockets
 * under /run/warden; and the root remounted read-only once everything is in place.
 */
export function planBwrap(request: SandboxRequest, host: BwrapHost): BwrapPlan {
  checkRequest(request, host);
  if (host.arch === null) {
    throw new SandboxUnavailableError(
      `warden has no seccomp filter for this machine's architecture (${process.arch})`,
      { hint: "run warden on x86-64 or arm64 Linux; a sandbox never runs without its filter" },
    );
  }
  const { uid, gid } = SANDBOX_LIMITS;
  const mounts: BwrapMount[] = [{ op: "tmpfs", dest: "/", mode: 0o755, sizeBytes: null }];
  for (const dir of host.systemDirs) {
    mounts.push(
      dir.kind === "dir"
        ? { op: "ro-bind", src: dir.path, dest: dir.path }
        : { op: "symlink", target: dir.target, dest: dir.path },
    );
  }
  mounts.push({ op: "dir", dest: "/etc", mode: 0o755 });
  for (const entry of host.etcEntries) mounts.push({ op: "ro-bind", src: entry, dest: entry });
  mounts.push(
    { op: "data", dest: "/etc/passwd", mode: 0o644, text: passwdFile(uid, gid) },
    { op: "data", dest: "/etc/group", mode: 0o644, text: groupFile(gid) },
    { op: "data", dest: "/etc/hosts", mode: 0o644, text: HOSTS_FILE },
    { op: "data", dest: "/etc/nsswitch.conf", mode: 0o644, text: NSSWITCH_FILE },
    { op: "proc", dest: "/proc" },
    // bwrap makes /proc/sys read-only only where it may write there itself; unprivileged, it
    // may not, and the sysctls of the sandbox's own IPC and PID namespaces (msgmni, pid_max)
    // would stay writable. A read-only bind over it closes every one.
    { op: "ro-bind", src: "/proc/sys", dest: "/proc/sys" },
    { op: "dev", dest: "/dev" },
    { op: "tmpfs", dest: "/dev/shm", mode: 0o1777, sizeBytes: SANDBOX_LIMITS.shmBytes },
    { op: "tmpfs", dest: "/tmp", mode: 0o1777, sizeBytes: SANDBOX_LIMITS.tmpBytes },
    { op: "dir", dest: SANDBOX_PATHS.scratch, mode: 0o700 },
    { op: "dir", dest: "/home", mode: 0o755 },
    { op: "tmpfs", dest: SANDBOX_PATHS.home, mode: 0o700, sizeBytes: SANDBOX_LIMITS.homeBytes },
    // Binds come after the tmpfs mounts so that a bind under /tmp or the home lands on top.
    ...sharedBinds(request, host),
    { op: "ro-bind", src: request.share, dest: SANDBOX_PATHS.share },
    { op: "bind", src: request.workspace, dest: SANDBOX_PATHS.workspace },
    { op: "dir", dest: "/run", mode: 0o755 },
    { op: "dir", dest: SANDBOX_PATHS.sockets, mode: 0o755 },
  );
  for (const socket of request.sockets) {
    const dest = `${SANDBOX_PATHS.sockets}/${socketFileName(socket.name)}`;
    mounts.push({ op: "ro-bind", src: socket.path, dest });
  }
  mounts.push({ op: "remount-ro", dest: "/dev" }, { op: "remount-ro", dest: "/" });
  const dedicated = host.identity.kind === "dedicated";
  const staged = dedicated ? stageMounts(mounts, host) : null;
  const grants: BwrapGrant[] = dedicated
    ? [
        { path: request.share, recursive: true },
        { path: request.workspace, recursive: false },
        ...request.sockets.map((s) => ({ path: s.path, recursive: false })),
      ]
    : [];
  return {
    backend: "bwrap",
    bwrap: host.bwrap ?? "bwrap",
    taskId: request.taskId,
    uid,
    gid,
    identity: host.identity,
    stage: staged?.stage ?? null,
    grants,
    readable: staged?.readable.filter((p) => !grants.some((g) => g.path === p)) ?? [],
    seccomp: { arch: host.arch, denied: DENIED_SYSCALLS.map((d) => d.name) },
    hostname: HOSTNAME,
    mounts: staged?.mounts ?? mounts,
    env: {
      ...bwrapBaseEnv(host.nodeDir),
      ...(request.sockets.length > 0 ? { [RUNNER_ENV.sockets]: SANDBOX_PATHS.sockets } : {}),
      ...request.env,
    },
    cwd: SANDBOX_PATHS.workspace,
    command: runnerCommand(request),
    limits: activeLimits(request.limits),
  };
}

/** Whether stage 1 shows `path` at its own path: a system directory, /etc or /proc. */
function inStageRoot(path: string, host: BwrapHost): boolean {
  if (isSameOrUnder(path, "/etc") || isSameOrUnder(path, "/proc")) return true;
  return host.systemDirs.some((d) => d.kind === "dir" && isSameOrUnder(path, d.path));
}

/**
 * Pure: the stage that shows every bind source outside the system directories at
 * STAGE_DIR/<n>, and the sandbox's mounts rewritten to bind from there.
 */
function stageMounts(
  mounts: BwrapMount[],
  host: BwrapHost,
): { stage: BwrapStage; mounts: BwrapMount[]; readable: string[] } {
  if (host.timeout === null) {
    throw new SandboxUnavailableError("coreutils' timeout is not installed", {
      hint: "install coreutils",
    });
  }
  if (host.setpriv === null) {
    throw new SandboxUnavailableError(
      `setpriv is not installed: warden runs as root and needs it to start sandboxes as uid ${host.identity.uid}`,
      { hint: "install util-linux (`apt-get install util-linux`), which has setpriv" },
    );
  }
  // A missing bwrap is refused by start() with what to install.
  for (const [what, path] of [
    ["setpriv", host.setpriv],
    ["timeout", host.timeout],
    ["bwrap", host.bwrap],
  ] as const) {
    if (path !== null && !inStageRoot(path, host)) {
      throw new SandboxUnavailableError(
        `${what} is at ${path}, outside the system directories a root warden starts sandboxes from`,
        { hint: `install ${what} under /usr (your distribution's package does)` },
      );
    }
  }
  const binds: BwrapStage["binds"] = [];
  const readable: string[] = [];
  const rewritten = mounts.map((mount): BwrapMount => {
    if ((mount.op !== "ro-bind" && mount.op !== "bind") || inStageRoot(mount.src, host)) {
      return mount;
    }
    const at = `${STAGE_DIR}/${binds.length}`;
    binds.push({ src: mount.src, at, writable: mount.op === "bind" });
    if (mount.op === "ro-bind") readable.push(mount.src);
    return { ...mount, src: at };
  });
  return {
    stage: { setpriv: host.setpriv, waiter: host.timeout, systemDirs: host.systemDirs, binds },
    mounts: rewritten,
    readable,
  };
}
