// Renders a bwrap plan into bwrap's argv: pure, and never a shell string.
import type { SystemDir } from "./bwrapHost.js";
import { STAGE_DIR, type BwrapMount, type BwrapPlan, type BwrapStage } from "./planBwrap.js";
import type { SandboxCommand, SandboxFd } from "./sandboxCommand.js";
import { seccompBytes } from "./seccompFilter.js";

/** bwrap writes the sandbox's first pid here; see SandboxFd. */
export const INFO_FD = 3;
/** bwrap waits on this before it runs the runner; see SandboxFd. */
export const BLOCK_FD = 4;

/**
 * The flags every bwrap sandbox has, whatever the plan says. --unshare-user is explicit (not
 * left to --unshare-all's "try") so that a host without user namespaces fails instead of running
 * the runner as root; --disable-userns then stops the runner from making one of its own.
 */
const FIXED_FLAGS = [
  "--unshare-all",
  "--unshare-user",
  "--disable-userns",
  "--die-with-parent",
  "--new-session",
  "--cap-drop",
  "ALL",
];

function octal(mode: number): string {
  return mode.toString(8).padStart(4, "0");
}

function renderMount(mount: BwrapMount, nextFd: () => number, fds: SandboxFd[]): string[] {
  switch (mount.op) {
    case "tmpfs": {
      const size = mount.sizeBytes === null ? [] : ["--size", String(mount.sizeBytes)];
      return ["--perms", octal(mount.mode), ...size, "--tmpfs", mount.dest];
    }
    case "ro-bind":
      return ["--ro-bind", mount.src, mount.dest];
    case "bind":
      return ["--bind", mount.src, mount.dest];
    case "symlink":
      return ["--symlink", mount.target, mount.dest];
    case "dir":
      return ["--perms", octal(mount.mode), "--dir", mount.dest];
    case "data": {
      const fd = nextFd();
      fds.push({ fd, role: "data", text: mount.text });
      return ["--perms", octal(mount.mode), "--ro-bind-data", String(fd), mount.dest];
    }
    case "proc":
      return ["--proc", mount.dest];
    case "dev":
      return ["--dev", mount.dest];
    case "remount-ro":
      return ["--remount-ro", mount.dest];
  }
}

/**
 * The environment goes to bwrap through a descriptor (--args), not its argv: an argv is visible
 * to every user of the host in the process list, and the environment may carry a token.
 */
function renderEnv(env: Record<string, string>, nextFd: () => number, fds: SandboxFd[]): string[] {
  const entries = Object.entries(env);
  if (entries.length === 0) return [];
  const fd = nextFd();
  const words = entries.flatMap(([name, value]) => ["--setenv", name, value]);
  fds.push({ fd, role: "data", text: words.map((w) => `${w}\0`).join("") });
  return ["--args", String(fd)];
}

function renderSystemDir(dir: SystemDir): string[] {
  return dir.kind === "dir"
    ? ["--ro-bind", dir.path, dir.path]
    : ["--symlink", dir.target, dir.path];
}

/**
 * The privileged first stage of a root warden (see BwrapStage): a mount namespace of the system
 * directories, /etc, the host's /proc (a fresh one may only be mounted where a whole one is in
 * view) and the staged sources; then setpriv drops to the sandbox's uid, with no supplementary
 * group, and runs the sandbox's bwrap.
 *
 * Between them stands `timeout 0` (no time limit), a waiter that keeps CAP_KILL. The kernel
 * sends a parent-death signal as if from the dying parent, and stage 1's bwrap has no
 * capabilities left to signal another uid: without a parent that may, the sandbox's bwrap would
 * outlive a killed warden. The chain is warden, stage 1, the waiter, setpriv then the
 * sandbox's bwrap, each dying with the one before. setpriv loses every capability with the uid.
 */
function renderStage(stage: BwrapStage, plan: BwrapPlan): string[] {
  return [
    "--die-with-parent",
    "--cap-add",
    "CAP_SETUID",
    "--cap-add",
    "CAP_SETGID",
    "--cap-add",
    "CAP_KILL",
    "--tmpfs",
    "/",
    ...stage.systemDirs.flatMap(renderSystemDir),
    "--ro-bind",
    "/etc",
    "/etc",
    "--bind",
    "/proc",
    "/proc",
    "--dev",
    "/dev",
    // The sandbox's bwrap builds its root on a tmpfs it mounts at /tmp.
    "--perms",
    "0755",
    "--dir",
    "/tmp",
    "--perms",
    "0755",
    "--dir",
    STAGE_DIR,
    ...stage.binds.flatMap((b) => [b.writable ? "--bind" : "--ro-bind", b.src, b.at]),
    "--remount-ro",
    "/",
    "--",
    stage.waiter,
    "0",
    stage.setpriv,
    "--reuid",
    String(plan.identity.uid),
    "--regid",
    String(plan.identity.gid),
    "--clear-groups",
    // Set after the change of uid, which clears any set before it.
    "--pdeathsig",
    "SIGKILL",
    "--",
    plan.bwrap,
  ];
}

/** The filter goes in as a descriptor: bwrap loads it just before it runs the runner. */
function renderSeccomp(plan: BwrapPlan, nextFd: () => number, fds: SandboxFd[]): string[] {
  const fd = nextFd();
  fds.push({ fd, role: "bytes", bytes: seccompBytes(plan.seccomp) });
  return ["--seccomp", String(fd)];
}

export function renderBwrap(plan: BwrapPlan): SandboxCommand {
  const fds: SandboxFd[] = [
    { fd: INFO_FD, role: "info" },
    { fd: BLOCK_FD, role: "block" },
  ];
  let fd = BLOCK_FD;
  const nextFd = (): number => ++fd;
  const args = [
    ...FIXED_FLAGS,
    "--uid",
    String(plan.uid),
    "--gid",
    String(plan.gid),
    "--hostname",
    plan.hostname,
    "--info-fd",
    String(INFO_FD),
    "--block-fd",
    String(BLOCK_FD),
    ...plan.mounts.flatMap((m) => renderMount(m, nextFd, fds)),
    ...renderSeccomp(plan, nextFd, fds),
    "--clearenv",
    ...renderEnv(plan.env, nextFd, fds),
    "--chdir",
    plan.cwd,
    "--",
    plan.command.program,
    ...plan.command.args,
  ];
  const stage = plan.stage === null ? [] : renderStage(plan.stage, plan);
  // bwrap itself needs no environment: the sandbox's is set by the flags above.
  return { program: plan.bwrap, args: [...stage, ...args], env: {}, cwd: "/", fds };
}
