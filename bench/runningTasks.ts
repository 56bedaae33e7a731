// Many tasks running at once in one process, as a fleet worker runs them: while TASKS sandboxed
// agents wait (each `sleep`s), what the host process itself spends keeping watch over them (its
// CPU, the processes it starts, how late its event loop runs), against the same number of plain
// `sleep` processes it started itself. The watch is the bounds: each sandbox's cgroup events and
// the disk its workspace takes, measured every SANDBOX_LIMITS.boundPollMs.
// Run: npm run build && node --import tsx bench/runningTasks.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { createTask, executeTask, SandboxCheckMemo, WorkspaceMeter } from "../src/host/index.js";
import { Tasks } from "../src/store/index.js";
import { machineCpuMs, startedProcesses } from "./support/machineCpu.js";
import { makeSmallRepo } from "./support/smallRepo.js";

const quick = process.argv.includes("--quick");
const TASKS = quick ? 10 : 40;
/** How long the host is watched once every agent is running. */
const WINDOW_MS = quick ? 3_000 : 8_000;
/** Each agent sleeps this long: long enough for every task to start, then for the window. */
const SLEEP_S = quick ? 30 : 90;

interface Watched {
  /** CPU ms of this process per task per second. */
  ownCpu: number;
  /** CPU ms of the whole machine per task per second. */
  machineCpu: number;
  /** Processes started on the machine per task per second. */
  started: number;
  /** The event loop's 99th percentile delay, in ms. */
  loopDelayP99: number;
}

/** What this process and the machine spend over WINDOW_MS, per task and second. */
async function watch(count: number): Promise<Watched> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const cpuBefore = process.cpuUsage();
  const machineBefore = await machineCpuMs();
  const startedBefore = await startedProcesses();
  const began = performance.now();
  delay.enable();
  await sleep(WINDOW_MS);
  delay.disable();
  const seconds = (performance.now() - began) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const per = (value: number): number => value / count / seconds;
  return {
    ownCpu: per((cpu.user + cpu.system) / 1000),
    machineCpu: per((await machineCpuMs()) - machineBefore),
    started: per((await startedProcesses()) - startedBefore),
    loopDelayP99: delay.percentile(99) / 1e6,
  };
}

/** Files named `started` under `dir`: each task's agent leaves one in its workspace. */
async function countStarted(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.endsWith("/started")).length;
}

const root = await mkdtemp(join(tmpdir(), "warden-bench-running-"));
const repo = await makeSmallRepo(root);
const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
const sandboxOptions = { checks: new SandboxCheckMemo(), meter: new WorkspaceMeter() };
const sleepers: ChildProcess[] = [];

function print(label: string, watched: Watched): void {
  console.log(
    `  ${label.padEnd(34)} ${watched.ownCpu.toFixed(2).padStart(7)} ms ${watched.machineCpu.toFixed(2).padStart(9)} ms ` +
      `${watched.started.toFixed(2).padStart(9)} ${watched.loopDelayP99.toFixed(1).padStart(9)} ms`,
  );
}

try {
  for (let i = 0; i < TASKS; i++) sleepers.push(spawn("sleep", [String(SLEEP_S)]));
  const baseline = await watch(TASKS);
  for (const sleeper of sleepers) sleeper.kill();

  const running = Array.from({ length: TASKS }, async () => {
    const { summary } = await createTask(tasks, {
      repo,
      prompt: "x\n",
      agent: "command",
      command: ["sh", "-c", `: > started; exec sleep ${SLEEP_S}`],
    });
    return executeTask(tasks, summary.id, { sandboxOptions });
  });
  const allStarted = performance.now();
  while ((await countStarted(tasks.dataDir)) < TASKS) {
    if (performance.now() - allStarted > SLEEP_S * 500) throw new Error("the tasks did not start");
    await sleep(200);
  }
  const warden = await watch(TASKS);
  console.log(`${TASKS} tasks running at once in one process, ${WINDOW_MS / 1000} s watched:`);
  console.log(
    `  ${"".padEnd(34)} ${"own CPU".padStart(10)} ${"machine CPU".padStart(12)} ${"processes".padStart(9)} ${"loop p99".padStart(12)}`,
  );
  console.log(`  ${"".padEnd(34)} ${"per task and second".padStart(42)}`);
  print(`${TASKS} plain sleeps (baseline)`, baseline);
  print(`${TASKS} warden tasks in bwrap`, warden);
  const share = (w: Watched): string => `${((w.ownCpu * TASKS) / 10).toFixed(1)}%`;
  console.log(
    `  this process's share of one core: ${share(warden)} watching the tasks, ${share(baseline)} ` +
      `with the plain sleeps; ratio of machine CPU ${(warden.machineCpu / baseline.machineCpu).toFixed(1)}x`,
  );
  for (const task of await tasks.list()) await tasks.cancel(task.id).catch(() => undefined);
  await Promise.allSettled(running);
} finally {
  for (const sleeper of sleepers) sleeper.kill();
  await rm(root, { recursive: true, force: true });
}
