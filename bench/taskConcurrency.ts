// Many tasks at once on this machine: 100 no-op tasks (`true`) started together in one process,
// each in its own bwrap sandbox with its own network gate, in tasks per minute; against the same
// number of `git bundle create` + `git clone` + `true` pipelines run together, and as many
// `node -e 0` started together (each task starts its runner, a Node process, in its sandbox: no
// rate above that one is in reach), and as many bare sandboxes of warden's plan running `true`
// and `node -e 0` (the floor of a task's CPU). The process shares one memo of sandbox checks and
// one meter of workspaces among its tasks, as a process that runs many tasks does. The CPU per
// task counts the whole machine.
// With --trace, each task's phases are timed (WARDEN_TRACE) and the median and slowest of each
// are printed, to show where the tasks wait for each other.
// Run: npm run build && node --import tsx bench/taskConcurrency.ts [--quick] [--trace]
import "./support/withoutExtraCaCerts.js";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { createTask, executeTask, SandboxCheckMemo, WorkspaceMeter } from "../src/host/index.js";
import { TRACE_ENV, type TracedPhase } from "../src/lang/index.js";
import { Tasks } from "../src/store/index.js";
import { BwrapBackend } from "../src/sandbox/bwrapBackend.js";
import { finish, makeTaskDirs, removeTaskDirs, request } from "../test/sandbox/sandboxFixture.js";
import { CLOCK_TICKS_PER_SECOND, machineCpuMs } from "./support/machineCpu.js";

const quick = process.argv.includes("--quick");
const TASKS = quick ? 10 : 100;
const traced = process.argv.includes("--trace");
const run = promisify(execFile);
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

const root = await mkdtemp(join(tmpdir(), "warden-bench-many-"));
const repo = join(root, "repo");
await mkdir(repo);
for (let i = 0; i < 20; i++) await writeFile(join(repo, `file-${i}.txt`), `line ${i}\n`);
await run("git", ["init", "-q", "-b", "main", repo], { env: GIT_ENV });
await run("git", ["-C", repo, "add", "."], { env: GIT_ENV });
await run(
  "git",
  ["-C", repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "x"],
  {
    env: GIT_ENV,
  },
);

async function pipeline(i: number): Promise<void> {
  const dir = join(root, `baseline-${i}`);
  await mkdir(dir);
  await run("git", ["-C", repo, "bundle", "create", "-q", join(dir, "in.bundle"), "HEAD"], {
    env: GIT_ENV,
  });
  await run("git", ["clone", "-q", join(dir, "in.bundle"), join(dir, "clone")], { env: GIT_ENV });
  await run("true", [], { cwd: join(dir, "clone") });
}

const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
const sandboxOptions = { checks: new SandboxCheckMemo(), meter: new WorkspaceMeter() };
async function task(): Promise<string> {
  const { summary } = await createTask(tasks, {
    repo,
    prompt: "x\n",
    agent: "command",
    command: ["true"],
  });
  const env = traced ? { [TRACE_ENV]: join(root, "trace.jsonl") } : {};
  const outcome = await executeTask(tasks, summary.id, { env, sandboxOptions });
  return outcome.kind === "finished" ? outcome.terminal.state : outcome.kind;
}

/** N `node -e 0` at once: the floor of anything that starts a Node process per task. */
async function nodeStarts(count: number): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, () => run(process.execPath, ["-e", "0"])));
  return performance.now() - started;
}

/** CPU time, in ms, of this process and of the children it has waited for (from /proc). */
async function cpuMs(): Promise<{ own: number; children: number }> {
  const fields = (await readFile("/proc/self/stat", "utf8")).split(") ")[1]?.split(" ") ?? [];
  const ticks = (i: number): number => (Number(fields[i]) * 1000) / CLOCK_TICKS_PER_SECOND;
  return { own: ticks(11) + ticks(12), children: ticks(13) + ticks(14) };
}

/**
 * N bwrap sandboxes at once, as warden plans them for a task (its bounds, its cgroups), each
 * running `runner` instead of warden's runner: the wall time, and the machine's CPU per sandbox.
 * With `true` it is the sandbox's own cost; with `node -e 0`, that and a bare Node start inside.
 */
async function sandboxFloor(runner: {
  program: string;
  args: string[];
}): Promise<{ ms: number; cpuMs: number }> {
  const dirs = await Promise.all(Array.from({ length: TASKS }, () => makeTaskDirs()));
  try {
    const before = await machineCpuMs();
    const started = performance.now();
    await Promise.all(
      dirs.map(async (d) => finish(await new BwrapBackend().start(request(d, runner)))),
    );
    const ms = performance.now() - started;
    return { ms, cpuMs: ((await machineCpuMs()) - before) / TASKS };
  } finally {
    await Promise.all(dirs.map((d) => removeTaskDirs(d)));
  }
}

function perMinute(count: number, ms: number): number {
  return (count * 60_000) / ms;
}

try {
  let started = performance.now();
  await Promise.all(Array.from({ length: TASKS }, (_, i) => pipeline(i)));
  const baseMs = performance.now() - started;
  const nodeMs = await nodeStarts(TASKS);
  const bareSandbox = await sandboxFloor({ program: "/bin/true", args: [] });
  const nodeSandbox = await sandboxFloor({ program: process.execPath, args: ["-e", "0", "--"] });
  const cpuBefore = await cpuMs();
  const machineBefore = await machineCpuMs();
  started = performance.now();
  const states = await Promise.all(Array.from({ length: TASKS }, () => task()));
  const taskMs = performance.now() - started;
  const cpuAfter = await cpuMs();
  const machineAfter = await machineCpuMs();
  const succeeded = states.filter((s) => s === "succeeded").length;
  const base = perMinute(TASKS, baseMs);
  const warden = perMinute(succeeded, taskMs);
  console.log(`${TASKS} at once on ${cpus().length} cores:`);
  console.log(
    `  bundle + clone + true pipelines (baseline) ${(baseMs / 1000).toFixed(1).padStart(6)} s  ${base.toFixed(0).padStart(6)} per minute`,
  );
  console.log(
    `  warden no-op tasks in bwrap (${succeeded} succeeded) ${(taskMs / 1000).toFixed(1).padStart(6)} s  ${warden.toFixed(0).padStart(6)} per minute   ratio ${(warden / base).toFixed(2)}x`,
  );
  console.log(
    `  node -e 0, as many at once (a Node start per task: the ceiling) ${(nodeMs / 1000).toFixed(1).padStart(6)} s  ${perMinute(TASKS, nodeMs).toFixed(0).padStart(6)} per minute`,
  );
  console.log(
    `  CPU per task: ${((cpuAfter.own - cpuBefore.own) / TASKS).toFixed(0)} ms in this process, ${((cpuAfter.children - cpuBefore.children) / TASKS).toFixed(0)} ms in the children it reaped, ${((machineAfter - machineBefore) / TASKS).toFixed(0)} ms of the whole machine`,
  );
  for (const [what, floor] of [
    ["true", bareSandbox],
    ["node -e 0", nodeSandbox],
  ] as const) {
    console.log(
      `  bwrap sandboxes as warden plans them, running ${what} ${(floor.ms / 1000).toFixed(1).padStart(6)} s  ${perMinute(TASKS, floor.ms).toFixed(0).padStart(6)} per minute, ${floor.cpuMs.toFixed(0)} ms of the whole machine each`,
    );
  }
  const budget = (cpus().length * 60_000) / 600;
  console.log(
    `  600 tasks a minute on ${cpus().length} cores leave ${budget.toFixed(0)} ms of the machine's CPU per task`,
  );
  if (traced) await printPhases(join(root, "trace.jsonl"));
} finally {
  await rm(root, { recursive: true, force: true });
}

/** Each phase's median and slowest duration over the tasks, longest median first. */
async function printPhases(file: string): Promise<void> {
  const took = new Map<string, number[]>();
  for (const line of (await readFile(file, "utf8")).split("\n")) {
    if (line === "") continue;
    const phase = JSON.parse(line) as TracedPhase;
    const key = `${phase.side} ${phase.name}`;
    took.set(key, [...(took.get(key) ?? []), phase.end - phase.start]);
  }
  const rows = [...took.entries()].map(([key, values]) => {
    const sorted = values.sort((a, b) => a - b);
    return { key, median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
  });
  console.log(`  ${"phase".padEnd(56)} ${"median".padStart(8)} ${"slowest".padStart(8)}`);
  for (const row of rows.sort((a, b) => b.median - a.median)) {
    console.log(
      `  ${row.key.slice(0, 56).padEnd(56)} ${row.median.toFixed(0).padStart(8)} ${row.max.toFixed(0).padStart(8)}`,
    );
  }
}
