// Cancel to gone: from `cancel` of a running task (its agent asleep) until its end is recorded
// and nothing of its sandbox runs, against SIGTERM of a plain `sleep` until it has exited.
// Median of several runs.
// Run: node --import tsx bench/taskCancel.ts [--quick]
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createTask, executeTask, taskLayout } from "../src/host/index.js";
import { Tasks } from "../src/store/index.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 9;

const root = await mkdtemp(join(tmpdir(), "warden-bench-cancel-"));
const repo = join(root, "repo");
await mkdir(repo);
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
execFileSync("git", ["init", "-q", "-b", "main", repo], { env: GIT_ENV });
execFileSync(
  "git",
  [
    "-C",
    repo,
    "-c",
    "user.name=b",
    "-c",
    "user.email=b@b",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "x",
  ],
  { env: GIT_ENV },
);
const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });

async function baseline(): Promise<number> {
  const child = spawn("sleep", ["600"], { stdio: "ignore" });
  await new Promise((resolve) => child.once("spawn", resolve));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const started = performance.now();
  child.kill("SIGTERM");
  await exited;
  return performance.now() - started;
}

async function cancelTask(): Promise<number> {
  const { summary } = await createTask(tasks, {
    repo,
    prompt: "sleep\n",
    agent: "command",
    command: ["sh", "-c", "touch started; exec sleep 600"],
  });
  const running = executeTask(tasks, summary.id, { env: {} });
  const marker = join(taskLayout(tasks.dataDir, summary.id).workspace, "started");
  while (!existsSync(marker)) await sleep(5);
  const started = performance.now();
  await tasks.cancel(summary.id);
  const outcome = await running;
  const took = performance.now() - started;
  if (outcome.kind !== "finished" || outcome.terminal.state !== "cancelled") {
    throw new Error(`the task was not cancelled: ${JSON.stringify(outcome)}`);
  }
  return took;
}

async function measure(fn: () => Promise<number>): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await fn());
  return median(runs);
}

try {
  const base = await measure(baseline);
  const task = await measure(cancelTask);
  console.log(`cancel to gone, median of ${RUNS}:`);
  console.log(
    `  SIGTERM of a plain sleep to its exit (baseline) ${base.toFixed(1).padStart(7)} ms`,
  );
  console.log(
    `  cancel of a running task to its recorded end    ${task.toFixed(1).padStart(7)} ms   ratio ${(task / base).toFixed(0)}x`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
