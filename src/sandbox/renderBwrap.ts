// Renders a bwrap plan into bwrap's argv: pure, and never a shell string.
import type { BwrapMount, BwrapPlan } from "./planBwrap.js";
import type { SandboxCommand, SandboxFd } from "./sandboxCommand.js";

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
    "--clearenv",
    ...renderEnv(plan.env, nextFd, fds),
    "--chdir",
    plan.cwd,
    "--",
    plan.command.program,
    ...plan.command.args,
  ];
  // bwrap itself needs no environment: the sandbox's is set by the flags above.
  return { program: plan.bwrap, args, env: {}, cwd: "/", fds };
}
