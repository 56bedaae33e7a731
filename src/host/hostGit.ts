// Every git command the host runs on a user's repository goes through here, so that none of them
// runs a hook, asks an fsmonitor, prompts for a password, or waits forever.
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { cleanLine, GitError } from "../protocol/index.js";

/** The hint of a git command on the host that failed on the repository. */
const REPOSITORY_HINT = "check the repository with `git status` and `git fsck`";

/** A git call on the host that takes longer than this is stuck, not slow. */
export const HOST_GIT_TIMEOUT_MS = 10 * 60 * 1000;

/** Stdout kept from one git call: object ids and ref lists, never file contents. */
export const HOST_GIT_MAX_OUTPUT = 16 * 1024 * 1024;

/** The config every host git call is given, whatever the user's own config says. */
export const SAFE_GIT_CONFIG = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.untrackedCache=false",
  // A fetch into the user's repository must not start a repack or maintenance of it.
  "-c",
  "gc.auto=0",
  "-c",
  "maintenance.auto=false",
] as const;

/**
 * The host's environment for git, without any GIT_* variable: one such as GIT_DIR,
 * GIT_WORK_TREE, GIT_INDEX_FILE or GIT_CONFIG_PARAMETERS would point git at another repository,
 * a working tree or config warden did not choose.
 */
export function gitEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !name.startsWith("GIT_")) env[name] = value;
  }
  return { ...env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", ...extra };
}

export interface GitOptions {
  /** The repository or directory git runs in (`git -C`). */
  cwd: string;
  timeoutMs?: number;
  /** Extra environment, such as GIT_DIR for a scratch repository. */
  env?: Record<string, string>;
  /** Bytes for git's stdin (nothing otherwise); the stream is destroyed when git ends. */
  stdin?: Readable;
}

export interface GitOutput {
  stdout: string;
  stderr: string;
}

/** Runs git with the safe config; resolves with its output, or throws GitError quoting stderr. */
export function hostGit(args: readonly string[], options: GitOptions): Promise<GitOutput> {
  const argv = [...SAFE_GIT_CONFIG, "-C", options.cwd, ...args];
  return new Promise((resolve, reject) => {
    const input = options.stdin;
    const child = spawn("git", argv, {
      stdio: ["pipe", "pipe", "pipe"],
      env: gitEnvironment(process.env, options.env),
      timeout: options.timeoutMs ?? HOST_GIT_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes <= HOST_GIT_MAX_OUTPUT) out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errBytes += chunk.length;
      if (errBytes <= 64 * 1024) err.push(chunk);
    });
    // git may stop reading early (a pack it refuses): the broken pipe is not the failure, git's
    // exit is.
    child.stdin.on("error", () => undefined);
    if (input === undefined) {
      child.stdin.end();
    } else {
      input.on("error", (error) => {
        child.kill("SIGKILL");
        reject(
          new GitError(`could not read git's input: ${cleanLine(error.message)}`, {
            hint: REPOSITORY_HINT,
          }),
        );
      });
      input.pipe(child.stdin);
    }
    child.on("error", (error) => {
      input?.destroy();
      reject(
        new GitError(`could not run git: ${cleanLine(error.message)}`, { hint: "install git" }),
      );
    });
    child.on("close", (code, signal) => {
      input?.destroy();
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      if (code === 0 && outBytes <= HOST_GIT_MAX_OUTPUT) {
        resolve({ stdout, stderr });
        return;
      }
      const why =
        signal !== null
          ? `was stopped by ${signal}`
          : outBytes > HOST_GIT_MAX_OUTPUT
            ? "printed more than warden reads"
            : `failed: ${cleanLine(stderr.trim()) || `exit ${String(code)}`}`;
      const failed = signal === null && outBytes <= HOST_GIT_MAX_OUTPUT;
      reject(
        new GitError(`git ${cleanLine(args.slice(0, 2).join(" "))} ${why}`, {
          hint: REPOSITORY_HINT,
          ...(failed ? { gitStderr: stderr } : {}),
        }),
      );
    });
  });
}
