// Where things are inside an isolating sandbox, and the flags that tell the runner so.

/** Paths inside the bwrap sandbox. The none backend uses host paths instead. */
export const SANDBOX_PATHS = {
  /** The task share, read-only. */
  share: "/share",
  /** The workspace, the one writable host directory. */
  workspace: "/workspace",
  /** The runner's private scratch space, on the sandbox's tmpfs /tmp. */
  scratch: "/tmp/warden-scratch",
  /** The agent's home, a tmpfs: nothing of the host user's home is ever bound. */
  home: "/home/agent",
  /** The host's unix sockets, each as `<name>.sock`. */
  sockets: "/run/warden",
} as const;

/**
 * The flags a backend adds to the runner's command line. The runner reads where things are from
 * them, so the same runner works in every backend.
 */
export const RUNNER_FLAGS = {
  share: "--share",
  workspace: "--workspace",
  scratch: "--scratch",
  /** Given only where the runner has a PID namespace of its own, so it may kill all it sees. */
  ownPidNamespace: "--own-pid-namespace",
} as const;

/**
 * The variables a backend adds to the runner's environment. A variable, unlike a flag, cannot
 * make a runner that does not know it refuse to start.
 */
export const RUNNER_ENV = {
  /** Set only when the request has sockets: the directory holding `<name>.sock` for each. */
  sockets: "WARDEN_GUEST_SOCKETS",
  /**
   * "any" where the runner shares the host's network: its forwarders then take free loopback
   * ports instead of the fixed ones, so concurrent tasks never collide.
   */
  egressPorts: "WARDEN_GUEST_EGRESS_PORTS",
} as const;

/** The name of a socket as seen by the runner: `<dir>/<name>.sock`. */
export function socketFileName(name: string): string {
  return `${name}.sock`;
}
