// Many tasks at once on this machine: 100 no-op tasks (`true`) started together in one process,
// each in its own bwrap sandbox with its own network gate, in tasks per minute; against the same
// number of `git bundle create` + `git clone` + `true` pipelines run together. The process shares
// one memo of sandbox checks among its tasks, as a process that runs many tasks does.
// Run: node --import tsx bench/taskConcurrency.ts [--quick]
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { createTask, executeTask, SandboxCheckMemo } from "../src/host/index.js";
import { Tasks } from "../src/store/index.js";

const quick = process.argv.includes("--quick");
const TASKS = quick ? 10 : 100;
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
const sandboxOptions = { checks: new SandboxCheckMemo() };
async function task(): Promise<string> {
  const { summary } = await createTask(tasks, {
    repo,
    prompt: "x\n",
    agent: "command",
    command: ["true"],
  });
  const outcome = await executeTask(tasks, summary.id, { env: {}, sandboxOptions });
  return outcome.kind === "finished" ? outcome.terminal.state : outcome.kind;
}

/** The unit of the CPU times in /proc/self/stat (USER_HZ, 100 on every Linux architecture). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time, in ms, of this process and of the children it has waited for (from /proc). */
async function cpuMs(): Promise<{ own: number; children: number }> {
  const fields = (await readFile("/proc/self/stat", "utf8")).split(") ")[1]?.split(" ") ?? [];
  const ticks = (i: number): number => (Number(fields[i]) * 1000) / CLOCK_TICKS_PER_SECOND;
  return { own: ticks(11) + ticks(12), children: ticks(13) + ticks(14) };
}

function perMinute(count: number, ms: number): number {
  return (count * 60_000) / ms;
}

try {
  let started = performance.now();
  await Promise.all(Array.from({ length: TASKS }, (_, i) => pipeline(i)));
  const baseMs = performance.now() - started;
  const cpuBefore = await cpuMs();
  started = performance.now();
  const states = await Promise.all(Array.from({ length: TASKS }, () => task()));
  const taskMs = performance.now() - started;
  const cpuAfter = await cpuMs();
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
    `  CPU per task: ${((cpuAfter.own - cpuBefore.own) / TASKS).toFixed(0)} ms in this process, ${((cpuAfter.children - cpuBefore.children) / TASKS).toFixed(0)} ms in its children (git, bwrap, the runner)`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
