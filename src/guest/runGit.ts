// Runs one planned git step: no shell, a clean environment, bounded output, and killed with
// everything it started when its step's deadline passes or the runner is told to stop.
import { spawn } from "node:child_process";
import type { PhaseTrace } from "../lang/index.js";
import { cleanLine } from "../protocol/index.js";
import { GitDeadlineError, GitError } from "./errors.js";
import { gitArgv, type GitStep } from "./gitSteps.js";

/** Git's stdout is an oid or nothing for every step the runner runs; this is generous. */
const MAX_GIT_STDOUT_BYTES = 64 * 1024;
/** Enough of git's stderr for the error message; the end is kept, where git says what failed. */
const MAX_GIT_STDERR_BYTES = 16 * 1024;

export interface GitContext {
  readonly workspace: string;
  readonly env: Readonly<Record<string, string>>;
  /** Aborts the call: the step's deadline, or the runner being stopped. */
  readonly signal: AbortSignal;
  /** Times each git call when the runner traces its phases. */
  readonly trace?: PhaseTrace;
}

export interface GitRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

class Bounded {
  private chunks: Buffer[] = [];
  private bytes = 0;
  constructor(
    private readonly max: number,
    private readonly keep: "head" | "tail",
  ) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    if (this.bytes > 2 * this.max) this.compact();
  }
  private compact(): void {
    const all = Buffer.concat(this.chunks);
    const kept = this.keep === "head" ? all.subarray(0, this.max) : all.subarray(-this.max);
    this.chunks = [kept];
    this.bytes = kept.length;
  }
  text(): string {
    this.compact();
    return this.chunks[0]?.toString("utf8") ?? "";
  }
}

/**
 * Runs a step and resolves with its exit code and output when the code is one of `okCodes`;
 * rejects with GitError otherwise, or with the signal's reason when it aborts.
 */
export function runGit(
  context: GitContext,
  step: GitStep,
  okCodes: readonly number[] = [0],
): Promise<GitRun> {
  const { signal } = context;
  if (signal.aborted) return Promise.reject(abortReason(signal, step));
  // Timed from before the spawn, which forks and waits for git's exec before it returns.
  const ended = context.trace?.start(`git: ${step.what}`);
  const running = new Promise<GitRun>((resolve, reject) => {
    // Its own process group, so that git's helpers (index-pack, pack-objects) die with it.
    const child = spawn("git", gitArgv(context.workspace, step), {
      env: context.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const stdout = new Bounded(MAX_GIT_STDOUT_BYTES, "head");
    const stderr = new Bounded(MAX_GIT_STDERR_BYTES, "tail");
    child.stdout.on("data", (chunk: Buffer) => {
      stdout.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr.push(chunk);
    });
    const onAbort = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is already gone.
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(new GitError(`cannot run git to ${step.what}: ${cleanLine(error.message)}`));
    });
    child.on("close", (code, killedBy) => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) {
        reject(abortReason(signal, step));
        return;
      }
      const run = { code: code ?? -1, stdout: stdout.text(), stderr: stderr.text() };
      if (code !== null && okCodes.includes(code)) {
        resolve(run);
        return;
      }
      const how = code === null ? `was killed by ${killedBy ?? "a signal"}` : `exited ${code}`;
      const said = cleanLine(run.stderr.trim());
      reject(new GitError(`git failed to ${step.what}: it ${how}${said ? `: ${said}` : ""}`));
    });
  });
  return ended === undefined ? running : running.finally(ended);
}

function abortReason(signal: AbortSignal, step: GitStep): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new GitDeadlineError(`git did not finish: ${step.what}`);
}
