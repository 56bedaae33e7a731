// The rendered form of a plan: what is executed, never a shell string.

/**
 * A descriptor the started process gets beyond stdin, stdout and stderr, numbered from 3 in the
 * order of SandboxCommand.fds.
 */
export type SandboxFd =
  /** Generated file contents, written and closed at once (bwrap reads it to the end). */
  | { fd: number; role: "data"; text: string }
  /** Generated binary contents (the seccomp program), written and closed at once. */
  | { fd: number; role: "bytes"; bytes: Uint8Array }
  /** bwrap writes what it made (the sandbox's first process) here, then closes it. */
  | { fd: number; role: "info" }
  /** bwrap waits for one byte here before it runs the runner, so limits apply from its start. */
  | { fd: number; role: "block" };

export interface SandboxCommand {
  program: string;
  args: string[];
  /** The whole environment of the started process: nothing of the host's is inherited. */
  env: Record<string, string>;
  cwd: string;
  fds: SandboxFd[];
}
