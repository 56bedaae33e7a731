// Sandbox start to runner ready: from asking for the sandbox to the runner's first progress line
// (it has read its options and serves its metadata API), bwrap against a plain spawn of the same
// runner on the same share. Median of several runs.
// Run: node --import tsx bench/taskStart.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { Readable } from "node:stream";
import { GUEST_MAIN, writeShare } from "../src/host/index.js";
import { sandboxBackend } from "../src/sandbox/index.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 5 : 21;

/** Settles at the first byte of `stream`. */
function firstByte(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    stream.once("data", () => {
      resolve();
    });
    stream.once("end", resolve);
  });
}

const root = await mkdtemp(join(tmpdir(), "warden-bench-start-"));
const repo = join(root, "repo");
const git = (...args: string[]): string =>
  execFileSync("git", ["-C", repo, ...args], {
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  })
    .toString()
    .trim();
await mkdir(repo);
git("init", "-q", "-b", "main");
git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "--allow-empty", "-m", "one");
const share = join(root, "share");
await writeShare(share, {
  settings: { agent: "command", command: ["true"] },
  prompt: "nothing\n",
  gitDir: join(repo, ".git"),
  base: git("rev-parse", "HEAD"),
  objectFormat: "sha1",
});

let counter = 0;
async function freshDirs(): Promise<{ workspace: string; scratch: string }> {
  counter++;
  const workspace = join(root, `workspace-${counter}`);
  const scratch = join(root, `scratch-${counter}`);
  await mkdir(workspace);
  return { workspace, scratch };
}

async function plain(): Promise<number> {
  const { workspace, scratch } = await freshDirs();
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [GUEST_MAIN, "--share", share, "--workspace", workspace, "--scratch", scratch],
    { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
  );
  await firstByte(child.stderr);
  const took = performance.now() - started;
  child.stdout.resume();
  child.stderr.resume();
  await new Promise((resolve) => child.once("close", resolve));
  return took;
}

const bwrap = sandboxBackend("bwrap");
async function sandboxed(): Promise<number> {
  const { workspace } = await freshDirs();
  const started = performance.now();
  const sandbox = await bwrap.start({
    taskId: `bench-${counter}`,
    share,
    workspace,
    sockets: [],
    runner: { program: process.execPath, args: [GUEST_MAIN] },
    readOnlyBinds: [],
    env: {},
    limits: {},
  });
  await firstByte(sandbox.stderr);
  const took = performance.now() - started;
  sandbox.stdout.resume();
  sandbox.stderr.resume();
  await sandbox.exit;
  return took;
}

async function measure(fn: () => Promise<number>): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await fn());
  return median(runs);
}

try {
  const check = await bwrap.check();
  if (!check.ok) throw new Error(`bwrap cannot run here: ${check.why}`);
  const base = await measure(plain);
  const boxed = await measure(sandboxed);
  console.log(`sandbox start to runner ready (first progress line), median of ${RUNS}:`);
  console.log(`  plain spawn of the runner (baseline) ${base.toFixed(1).padStart(7)} ms`);
  console.log(
    `  bwrap sandbox                        ${boxed.toFixed(1).padStart(7)} ms   ratio ${(boxed / base).toFixed(2)}x (+${(boxed - base).toFixed(1)} ms)`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
