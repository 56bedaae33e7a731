// Starts a rendered command: argv only, a clean environment, and the extra descriptors it names.
import { spawn, type ChildProcess } from "node:child_process";
import { Duplex, type Readable } from "node:stream";
import { within } from "../lang/index.js";
import { SANDBOX_LIMITS } from "./limits.js";
import type { SandboxCommand } from "./sandboxCommand.js";

export interface SpawnedCommand {
  child: ChildProcess;
  pid: number;
  stdout: Readable;
  stderr: Readable;
  /** Settles on the process's exit, however early that came. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Our end of each extra descriptor, by its number in the child. */
  fds: Map<number, Duplex>;
}

/**
 * Spawns the command with stdin closed and stdout, stderr and every extra descriptor piped, and
 * settles once the process exists. `detached` gives it a process group of its own.
 */
export async function spawnCommand(
  command: SandboxCommand,
  options: { detached: boolean },
): Promise<SpawnedCommand> {
  command.fds.forEach((f, i) => {
    if (f.fd !== 3 + i) throw new Error(`descriptor ${f.fd} is out of order in the command`);
  });
  const child = spawn(command.program, command.args, {
    cwd: command.cwd,
    env: command.env,
    stdio: ["ignore", "pipe", "pipe", ...command.fds.map(() => "pipe" as const)],
    detached: options.detached,
    windowsHide: true,
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => {
      resolve({ code, signal });
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once("spawn", resolve);
    child.once("error", reject);
  });
  // A later error (a signal to a process already reaped) is not the caller's concern.
  child.on("error", () => undefined);
  const fds = new Map<number, Duplex>();
  for (const f of command.fds) {
    const stream = child.stdio[f.fd];
    if (!(stream instanceof Duplex)) throw new Error(`descriptor ${f.fd} was not piped`);
    // bwrap may close its end first (when it fails): that is reported by its exit, not here.
    stream.on("error", () => undefined);
    fds.set(f.fd, stream);
  }
  const { pid, stdout, stderr } = child;
  if (pid === undefined || stdout === null || stderr === null) {
    throw new Error("the spawned process has no pid or no pipes");
  }
  return { child, pid, stdout, stderr, exited, fds };
}

/**
 * What the command wrote to stderr by its exit, at most SANDBOX_LIMITS.failureTextBytes. A
 * process it started may outlive it holding the stream open, so the end of the stream is awaited
 * at most `graceMs` after the exit: a failed start must end, not wait on what it left behind.
 */
export async function stderrUntilExit(spawned: SpawnedCommand, graceMs: number): Promise<string> {
  let text = "";
  const onData = (chunk: Buffer): void => {
    if (text.length < SANDBOX_LIMITS.failureTextBytes) text += chunk.toString("utf8");
  };
  spawned.stderr.on("data", onData);
  const ended = new Promise<void>((resolve) => {
    spawned.stderr.once("end", resolve);
    spawned.stderr.once("close", resolve);
  });
  await spawned.exited;
  await within(ended, graceMs);
  spawned.stderr.off("data", onData);
  spawned.stderr.destroy();
  return text.slice(0, SANDBOX_LIMITS.failureTextBytes);
}
