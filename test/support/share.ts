// Round trips through the real runner: a temporary repository, a task share made from it, the
// built `warden-guest` run as a plain child process, and its archive received the way the host
// receives it. Shared by the guest's tests and any test that needs a real task share.
//
// input.bundle is made in a throwaway bare clone, never in the repository itself: the clone's
// `main` is pointed at the start commit and bundled with HEAD, so any commit can be the start
// and the repository the host later fetches into keeps exactly the refs it had.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUEST_MAIN } from "../../src/host/guestProgram.js";
import {
  checkBundle,
  readBundleHeaderFile,
  receiveResults,
  type ReceivedResults,
} from "../../src/protocol/index.js";

/** The built runner, as the host starts it; the test script builds before it tests. */
export { GUEST_MAIN };

/** Git for the test's own repositories: no system or global config, a fixed identity. */
export const TEST_GIT_ENV: Readonly<Record<string, string>> = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: tmpdir(),
  LANG: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test Author",
  GIT_AUTHOR_EMAIL: "author@example.com",
  GIT_COMMITTER_NAME: "Test Author",
  GIT_COMMITTER_EMAIL: "author@example.com",
};

/** Runs git and resolves with its stdout, trimmed; rejects with its stderr when it fails. */
export function git(cwd: string, ...args: string[]): Promise<string> {
  return runGit(cwd, null, args);
}

/** Runs git with `input` on its stdin; otherwise as git(). */
export function gitWithInput(cwd: string, input: string, ...args: string[]): Promise<string> {
  return runGit(cwd, input, args);
}

function runGit(cwd: string, input: string | null, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = input === null ? "ignore" : "pipe";
    const child = spawn("git", args, { cwd, env: TEST_GIT_ENV, stdio: [stdin, "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString("utf8").trim());
      else reject(new Error(`git ${args.join(" ")}: ${Buffer.concat(err).toString("utf8")}`));
    });
    // A git that fails before it reads its input closes the pipe; its exit says why.
    child.stdin?.on("error", () => undefined);
    if (input !== null) child.stdin?.end(input);
  });
}

/** The argv of a `command` agent that runs a shell script; `args` are its $1, $2, ... */
export function shellAgent(script: string, ...args: string[]): string[] {
  return ["sh", "-c", script, "agent", ...args];
}

export interface RepoOptions {
  /** Files of the first commit, by path; a default README and .gitignore otherwise. */
  readonly files?: Readonly<Record<string, string>>;
  /** How many commits to make on top of the first one (default 2). */
  readonly commits?: number;
}

/** A repository with a few commits on `main`; resolves with its path and HEAD. */
export async function makeRepo(
  repo: string,
  options: RepoOptions = {},
): Promise<{ repo: string; head: string }> {
  await mkdir(repo, { recursive: true });
  await git(repo, "init", "--quiet", "--initial-branch=main");
  const files = options.files ?? { "README.md": "# a project\n", ".gitignore": "*.log\n" };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(repo, path, ".."), { recursive: true });
    await writeFile(join(repo, path), content);
  }
  await git(repo, "add", "--all");
  await git(repo, "commit", "--quiet", "-m", "first commit");
  for (let i = 1; i <= (options.commits ?? 2); i++) {
    await writeFile(join(repo, `step-${i}.txt`), `step ${i}\n`);
    await git(repo, "add", "--all");
    await git(repo, "commit", "--quiet", "-m", `step ${i}`);
  }
  return { repo, head: await git(repo, "rev-parse", "HEAD") };
}

/** Bundles `start` of `repo` as input.bundle, through a throwaway bare clone. */
export async function bundleStart(
  repo: string,
  start: string,
  file: string,
  refs: "head-and-branch" | "head-only" = "head-and-branch",
): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), "warden-bundle-"));
  try {
    const clone = join(scratch, "clone.git");
    await git(scratch, "clone", "--quiet", "--bare", "--no-local", repo, clone);
    const oid = await git(clone, "rev-parse", "--verify", `${start}^{commit}`);
    if (refs === "head-only") {
      await git(clone, "update-ref", "--no-deref", "HEAD", oid);
      await git(clone, "bundle", "create", "--quiet", file, "HEAD");
    } else {
      await git(clone, "update-ref", "refs/heads/main", oid);
      await git(clone, "symbolic-ref", "HEAD", "refs/heads/main");
      await git(clone, "bundle", "create", "--quiet", file, "HEAD", "refs/heads/main");
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export interface TaskOptions {
  /** The settings; `agent: "command"` unless given. Ignored when `taskJson` is given. */
  readonly settings?: Readonly<Record<string, unknown>>;
  /** task.json's exact bytes, for bad shares. */
  readonly taskJson?: string | Uint8Array;
  readonly prompt?: string | Uint8Array;
  /** Share files to leave out. */
  readonly omit?: readonly ("task.json" | "prompt.md" | "input.bundle")[];
  readonly repo?: RepoOptions;
  readonly bundleRefs?: "head-and-branch" | "head-only";
}

export interface TaskFixture {
  /** The temporary directory everything below is in. */
  readonly root: string;
  readonly repo: string;
  /** The start commit, as the host computes it: git rev-parse in the original repository. */
  readonly base: string;
  readonly share: string;
  readonly workspace: string;
  readonly scratch: string;
  /** Where received results go. */
  readonly results: string;
  cleanup(): Promise<void>;
}

/** A repository, a share made from its HEAD, an empty workspace and scratch dir. */
export async function makeTask(options: TaskOptions = {}): Promise<TaskFixture> {
  const root = await mkdtemp(join(tmpdir(), "warden-task-"));
  const { repo, head } = await makeRepo(join(root, "repo"), options.repo);
  const base = await git(repo, "rev-parse", "--verify", "HEAD^{commit}");
  if (base !== head) throw new Error("the repository moved while it was made");
  const share = join(root, "share");
  const workspace = join(root, "workspace");
  const scratch = join(root, "scratch");
  const results = join(root, "results");
  await Promise.all([share, workspace, results].map((dir) => mkdir(dir)));
  const omit = new Set(options.omit ?? []);
  if (!omit.has("task.json")) {
    const settings = { agent: "command", command: ["true"], ...options.settings };
    await writeFile(join(share, "task.json"), options.taskJson ?? JSON.stringify(settings));
  }
  if (!omit.has("prompt.md")) {
    await writeFile(join(share, "prompt.md"), options.prompt ?? "Do the task.\n");
  }
  if (!omit.has("input.bundle")) {
    await bundleStart(repo, base, join(share, "input.bundle"), options.bundleRefs);
  }
  return {
    root,
    repo,
    base,
    share,
    workspace,
    scratch,
    results,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

export interface GuestRunOptions {
  /** Flags after --share, --workspace and --scratch. */
  readonly args?: readonly string[];
  /** The runner's environment; the test's own when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The program and arguments that start the runner, in place of `node <main.js>`. */
  readonly wrap?: (argv: string[]) => string[];
  /** Called once the runner started, for tests that signal it. */
  readonly onStart?: (child: ChildProcess) => void;
}

export interface GuestRun {
  /** What receiveResults made of stdout; undefined when it refused (see receiveError). */
  readonly received: ReceivedResults | undefined;
  readonly receiveError: unknown;
  /** The runner's stderr, whole. */
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly repo: string;
  readonly base: string;
}

/**
 * Runs the built runner on a task as a plain child process, its stdout received into
 * `task.results` while its stderr is read at the same time, and waits for it to exit.
 */
export async function runGuest(
  task: TaskFixture,
  options: GuestRunOptions = {},
): Promise<GuestRun> {
  if (!existsSync(GUEST_MAIN)) {
    throw new Error(`${GUEST_MAIN} is missing: run \`npm run build\` before these tests`);
  }
  const argv = [
    process.execPath,
    GUEST_MAIN,
    "--share",
    task.share,
    "--workspace",
    task.workspace,
    "--scratch",
    task.scratch,
    ...(options.args ?? []),
  ];
  const [program, ...args] = options.wrap?.(argv) ?? argv;
  if (program === undefined) throw new Error("no program to run");
  const child = spawn(program, args, {
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr: Buffer[] = [];
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  const closed = new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolve([code, signal]);
    });
  });
  options.onStart?.(child);
  let received: ReceivedResults | undefined;
  let receiveError: unknown;
  try {
    received = await receiveResults(child.stdout, { dir: task.results });
  } catch (error) {
    receiveError = error;
    // Whatever is left must still be read, or the runner blocks on a full pipe.
    child.stdout.resume();
  }
  const [exitCode, signal] = await closed;
  return {
    received,
    receiveError,
    stderr: Buffer.concat(stderr).toString("utf8"),
    exitCode,
    signal,
    repo: task.repo,
    base: task.base,
  };
}

/**
 * What the host does with changes.bundle: reads its header without git, checks it against the
 * base it computed itself, and only then fetches it (objects checked) into the repository as
 * `branch`. Resolves with the head the bundle carries.
 */
export async function fetchChanges(run: GuestRun, branch: string): Promise<string> {
  const bundle = run.received?.files["changes.bundle"];
  if (bundle === undefined) throw new Error("the results have no changes.bundle");
  const head = checkBundle(await readBundleHeaderFile(bundle.path), run.base);
  await git(
    run.repo,
    "-c",
    "transfer.fsckObjects=true",
    "fetch",
    "--quiet",
    bundle.path,
    `refs/heads/warden/task:refs/heads/${branch}`,
  );
  return head;
}

/** The received results of a run, or a failure that says why there are none. */
export function receivedOf(run: GuestRun): ReceivedResults {
  if (run.received !== undefined) return run.received;
  throw new Error(
    `no results were received (${String(run.receiveError)}); the runner said:\n${run.stderr}`,
  );
}
