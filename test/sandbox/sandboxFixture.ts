// What the sandbox tests share: temporary task directories, requests, and reading a run to its end.
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findProgram } from "../../src/sandbox/bwrapHost.js";
import type {
  RunningSandbox,
  SandboxBackend,
  SandboxExit,
  SandboxRequest,
} from "../../src/sandbox/index.js";
import type { SandboxLimits } from "../../src/sandbox/sandboxRequest.js";
import { skipWhen, type SkipReason } from "../support/skipWhen.js";
import { TEST_LIMITS as TEST_SANDBOX_LIMITS } from "../support/testBounds.js";
import { after, before, type TestContext } from "node:test";
import { BwrapBackend } from "../../src/sandbox/bwrapBackend.js";

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), "fixtures");
export const PROBE = join(FIXTURES, "probe.js");

/** The skip reason of every test that needs bubblewrap, or false when it is here. */
export const NEEDS_BWRAP: SkipReason = skipWhen(
  findProgram("bwrap") === null ? "bubblewrap is not installed: apt-get install bubblewrap" : false,
);

export interface TaskDirs {
  root: string;
  share: string;
  workspace: string;
}

/** A share with the three files a runner expects, and an empty workspace. */
export async function makeTaskDirs(): Promise<TaskDirs> {
  const root = await mkdtemp(join(tmpdir(), "warden-sandbox-test-"));
  const share = join(root, "share");
  const workspace = join(root, "workspace");
  await mkdir(share, { mode: 0o700 });
  await mkdir(workspace, { mode: 0o700 });
  await writeFile(join(share, "task.json"), "{}\n", { mode: 0o600 });
  await writeFile(join(share, "prompt.md"), "do nothing\n", { mode: 0o600 });
  await writeFile(join(share, "input.bundle"), "", { mode: 0o600 });
  return { root, share, workspace };
}

export async function removeTaskDirs(dirs: TaskDirs): Promise<void> {
  await rm(dirs.root, { recursive: true, force: true });
}

/** The bounds a test sandbox has unless it asks for others (testBounds.ts). */
export const TEST_LIMITS: SandboxLimits = TEST_SANDBOX_LIMITS;

let counter = 0;

/** A request that runs `program args` (the probe by default) with the fixtures bound. */
export function request(
  dirs: TaskDirs,
  runner: { program: string; args: string[] },
  more: Partial<SandboxRequest> = {},
): SandboxRequest {
  counter += 1;
  return {
    taskId: `test-${process.pid}-${counter}`,
    share: dirs.share,
    workspace: dirs.workspace,
    sockets: [],
    runner,
    readOnlyBinds: [FIXTURES],
    env: {},
    limits: TEST_LIMITS,
    ...more,
  };
}

/** The probe with one action. */
export function probe(action: string, arg = ""): { program: string; args: string[] } {
  return { program: process.execPath, args: [PROBE, action, arg] };
}

/** A shell script; the flags the backend appends become its positional parameters. */
export function shell(script: string): { program: string; args: string[] } {
  return { program: "/bin/sh", args: ["-c", script, "sh"] };
}

export interface Finished {
  stdout: string;
  stderr: string;
  exit: SandboxExit;
}

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += String(chunk);
  return out;
}

/** Reads both streams at once until the sandbox has ended. */
export async function finish(sandbox: RunningSandbox): Promise<Finished> {
  const [stdout, stderr, exit] = await Promise.all([
    text(sandbox.stdout),
    text(sandbox.stderr),
    sandbox.exit,
  ]);
  return { stdout, stderr, exit };
}

/** Settles once `stream` has carried `needle`. */
export async function waitFor(stream: NodeJS.ReadableStream, needle: string): Promise<void> {
  let seen = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer | string): void => {
      seen += String(chunk);
      if (seen.includes(needle)) {
        stream.off("data", onData);
        stream.pause();
        resolve();
      }
    };
    stream.on("data", onData);
    stream.once("end", () => {
      reject(
        new Error(
          `the stream ended before ${JSON.stringify(needle)}; it carried ${JSON.stringify(seen)}`,
        ),
      );
    });
  });
}

/** Host pids of every process whose command line contains `marker`. */
export async function processesWith(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes(marker)) found.push(Number(entry));
  }
  return found;
}

/** Polls until no process carries `marker`, or the time is up; returns the pids left. */
export async function goneWithin(marker: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = await processesWith(marker);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * How long a test that starts and stops a sandbox may run before it counts as hung. Each takes
 * well under a second alone and a few on a loaded machine; without this bound, a stop that
 * never returns would hold its file until the suite's 600 s timeout. The test then fails, and
 * the hook of killedAtEnd kills what it started.
 */
export const HUNG_TEST_MS = 30_000;

/** How many times killMarked looks again: a process may fork between a look and its kill. */
const KILL_ROUNDS = 10;

/** SIGKILL to every process whose command line carries `marker`, until none is left. */
export async function killMarked(marker: string): Promise<void> {
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const left = await processesWith(marker);
    if (left.length === 0) return;
    for (const pid of left) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // It ended between the look and the kill.
      }
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A marker for the command lines of what a test starts, and a hook that kills every process
 * carrying it when the test ends, whether it passed, failed or timed out: a sandbox a failed
 * assertion left running keeps the test's pipes open, and its file would never end. A runner
 * given the marker as an argument puts it in the command line of each bwrap around it too.
 */
export function killedAtEnd(t: TestContext, name: string): string {
  const marker = `warden-${name}-marker-${randomUUID()}`;
  t.after(() => killMarked(marker));
  return marker;
}

/**
 * One bwrap backend and one set of task directories for the tests of a describe block, made
 * before them and removed after: what the bwrap test files share.
 */
export class BwrapSuite {
  #backend: BwrapBackend | undefined;
  #dirs: TaskDirs | undefined;

  get backend(): BwrapBackend {
    if (this.#backend === undefined) throw new Error("the bwrap suite is used outside its tests");
    return this.#backend;
  }

  get dirs(): TaskDirs {
    if (this.#dirs === undefined) throw new Error("the bwrap suite is used outside its tests");
    return this.#dirs;
  }

  /** Runs a shell script inside, to its end. */
  async inside(script: string): Promise<Finished> {
    return finish(await this.backend.start(request(this.dirs, shell(script))));
  }

  async setUp(): Promise<void> {
    this.#backend = new BwrapBackend();
    this.#dirs = await makeTaskDirs();
  }

  async tearDown(): Promise<void> {
    if (this.#dirs !== undefined) await removeTaskDirs(this.#dirs);
  }
}

/** A BwrapSuite for the enclosing describe block, set up and taken down by its hooks. */
export function useBwrapSandbox(): BwrapSuite {
  const suite = new BwrapSuite();
  before(() => suite.setUp());
  after(() => suite.tearDown());
  return suite;
}

/** The backend, with a count of the checks it was asked to make. */
export function countedChecks(backend: SandboxBackend): {
  backend: SandboxBackend;
  checks: () => number;
} {
  let checks = 0;
  const check = backend.check.bind(backend);
  const wrapped = Object.assign(Object.create(backend) as SandboxBackend, {
    check: () => {
      checks++;
      return check();
    },
  });
  return { backend: wrapped, checks: () => checks };
}
