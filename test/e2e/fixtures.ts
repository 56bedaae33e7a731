// What the whole-system tests share: the built CLI run as a child process against a temporary
// data directory, temporary repositories, snapshots of a repository, and the process tree.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { withTestBounds } from "../support/testBounds.js";
import { GUEST_MAIN } from "../../src/host/index.js";
import { Tasks, type TaskEvent } from "../../src/store/index.js";
import { makeRepo } from "../support/share.js";
import { skipWhen, type SkipReason } from "../support/skipWhen.js";

export { git, gitWithInput, makeRepo, TEST_GIT_ENV } from "../support/share.js";

/** The built CLI; the test script builds before it tests. */
export const CLI_MAIN = fileURLToPath(new URL("../../dist/cli/warden.cjs", import.meta.url));

/** Why the whole system cannot run here, or undefined when it can. */
export const NO_SYSTEM: SkipReason | undefined =
  skipWhen(
    !existsSync(CLI_MAIN) || !existsSync(GUEST_MAIN)
      ? "warden is not built: run `npm run build` first"
      : ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some((p) => existsSync(p))
        ? undefined
        : "bubblewrap is not installed: apt-get install bubblewrap",
  ) || undefined;

/** The test's own environment without anything that would change what warden does. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(WARDEN_|ANTHROPIC_|OPENAI_|GEMINI_|GOOGLE_|CODEX_|GIT_)/.test(name)) continue;
    env[name] = value;
  }
  // A config file of the person running the tests must not change what the tests see.
  return { ...env, XDG_CONFIG_HOME: "/nonexistent/warden-test-config", ...extra };
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  input?: string;
  cwd?: string;
}

/**
 * Starts `node dist/cli/warden.cjs --data-dir DIR ...args`; a task it makes has the test bounds
 * (testBounds.ts).
 */
export function startCli(dataDir: string, args: string[], options: CliOptions = {}): ChildProcess {
  const argv = [CLI_MAIN, "--data-dir", dataDir, ...withTestBounds(args)];
  const child = spawn(process.execPath, argv, {
    cwd: options.cwd ?? tmpdir(),
    env: options.env ?? cleanEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end(options.input ?? "");
  return child;
}

/** The arguments of `warden run` of a task in `repo`: its options, then the agent's command. */
export function runArgs(
  repo: string,
  prompt: string,
  options: readonly string[],
  command: readonly string[],
): string[] {
  return ["run", "--repo", repo, "--prompt", prompt, ...options, "--", ...command];
}

/** Runs the CLI to its end. */
export function runCli(
  dataDir: string,
  args: string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const child = startCli(dataDir, args, options);
  return collect(child);
}

export function collect(child: ChildProcess): Promise<CliResult> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
  });
}

export interface Workspace {
  root: string;
  repo: string;
  head: string;
  dataDir: string;
  cleanup(): Promise<void>;
}

export async function workspace(): Promise<Workspace> {
  const root = await mkdtemp(join(tmpdir(), "warden-e2e-"));
  const { repo, head } = await makeRepo(join(root, "repo"));
  return {
    root,
    repo,
    head,
    dataDir: join(root, "data"),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

async function hashFiles(
  dir: string,
  skip: (path: string) => boolean,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      const name = relative(dir, full);
      if (skip(name)) continue;
      if (entry.isDirectory()) await walk(full);
      else
        out[name] = createHash("sha256")
          .update(await readFile(full))
          .digest("hex");
    }
  };
  await walk(dir);
  return out;
}

/**
 * Everything of a repository a task could touch, read without git (a `git status` may rewrite
 * the index): every file of the working tree, and every file of .git except the objects.
 */
export async function snapshotRepo(repo: string): Promise<{
  tree: Record<string, string>;
  gitFiles: Record<string, string>;
}> {
  return {
    tree: await hashFiles(repo, (name) => name === ".git"),
    gitFiles: await hashFiles(join(repo, ".git"), (name) => name === "objects"),
  };
}

/** Every descendant of a process, with its start time so a reused pid is not taken for it. */
export async function descendants(pid: number): Promise<{ pid: number; start: string }[]> {
  const parents = new Map<number, number[]>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ppid = Number(fields[1]);
    parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
  }
  const out: { pid: number; start: string }[] = [];
  const queue = [...(parents.get(pid) ?? [])];
  while (queue.length > 0) {
    const child = queue.shift() ?? 0;
    const start = await startTime(child);
    if (start !== undefined) out.push({ pid: child, start });
    queue.push(...(parents.get(child) ?? []));
  }
  return out;
}

async function startTime(pid: number): Promise<string | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (stat === undefined) return undefined;
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
}

/** The processes of `list` that still run (the same pid with the same start time). */
export async function stillRunning(list: { pid: number; start: string }[]): Promise<number[]> {
  const alive: number[] = [];
  for (const p of list) {
    const stat = await readFile(`/proc/${p.pid}/stat`, "utf8").catch(() => undefined);
    if (stat === undefined) continue;
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // A zombie is dead: it only waits for its parent to read its status.
    if (fields[19] === p.start && fields[0] !== "Z") alive.push(p.pid);
  }
  return alive;
}

/** The task id a `run --detach` or `create` printed. */
export function idOf(result: CliResult): string {
  const id = result.stdout.trim().split("\n")[0]?.split(" ")[0] ?? "";
  if (!/^[0-9a-z]{26}$/.test(id))
    throw new Error(`no task id in: ${result.stdout}${result.stderr}`);
  return id;
}

/**
 * How long a test's agent waits for the file that releases it before it gives up: far longer
 * than a task takes to start and be seen on a loaded machine.
 */
export const RELEASE_WAIT_SECONDS = 60;

/**
 * A command agent's script that touches `started` in its workspace, then waits for `release`
 * there and succeeds, or fails with exit 7 once RELEASE_WAIT_SECONDS have passed without it.
 */
export const AWAIT_RELEASE =
  "touch started; i=0; while [ ! -e release ]; do i=$((i+1)); " +
  `[ $i -gt ${RELEASE_WAIT_SECONDS * 10} ] && exit 7; sleep 0.1; done`;

/** The workspace of task `id`: the agent's working directory, where a test releases it. */
export function taskWorkspace(dataDir: string, id: string): string {
  return join(dataDir, "tasks", id, "workspace");
}

/** The executor's pid, as it wrote it into attach.lock. */
export function executorPid(dataDir: string, id: string): number {
  const holder = JSON.parse(readFileSync(join(dataDir, "tasks", id, "attach.lock"), "utf8")) as {
    pid: number;
  };
  return holder.pid;
}

/** Resolves once `check` comes true, polling; rejects after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the condition did not come true in time");
}

/** Every event of a task so far. */
export async function taskEvents(dataDir: string, id: string): Promise<TaskEvent[]> {
  const tasks = await Tasks.open({ dataDir, env: {} });
  const out: TaskEvent[] = [];
  for await (const event of tasks.watch(id, { follow: false })) out.push(event);
  return out;
}

/**
 * Asserts that a `run --json` a usage limit ended at once because it resets after the task's
 * deadline: exit 3, failed, stopped by the usage limit, and never suspended.
 */
export async function assertEndedPastDeadline(dataDir: string, ran: CliResult): Promise<void> {
  assert.equal(ran.code, 3, ran.stderr);
  const ended = JSON.parse(ran.stdout) as Record<string, unknown>;
  assert.equal(ended.state, "failed");
  assert.equal(ended.stoppedBy, "usage_limit");
  assert.match(String(ended.error), /usage limit resets at .*, after the task's deadline/);
  const seen = await taskEvents(dataDir, String(ended.id));
  assert.equal(seen.find((e) => e.type === "usage_limit")?.verdict, "past_deadline");
  assert.ok(!seen.some((e) => e.type === "suspended"), "it was never suspended");
}
