// A fleet's worker on this machine, against the same machine without a fleet.
//
// Claim latency: no-op tasks submitted one at a time to an idle worker (capacity 1) on a local
// nats-server; for each, the time from `submitTask` returning (the task queued) to the worker's
// lease (the `attached` event's own time, written by the worker with the same clock), and from
// the start of `submitTask` (what `warden run --store` does before it follows: bundle, upload,
// create) to the lease. p50 and p99.
//
// Throughput: the same no-op tasks submitted together and run by one worker of capacity 2, in
// tasks per minute from the first submit to the last end; the baseline is the same tasks made
// and run by this process on the filesystem store, two at a time (createTask + executeTask, the
// host code the worker itself runs), measured in the same run. The ratio is the cost of the fleet.
// Run: npm run build && node --import tsx bench/fleetWorker.ts [--quick]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FleetStore, openWorkerDir, submitTask, Worker } from "../src/fleet/index.js";
import { createTask, executeTask, SandboxCheckMemo } from "../src/host/index.js";
import { Tasks, type WaitOutcome } from "../src/store/index.js";
import { NatsServer } from "../test/support/natsServer.js";
import { median } from "./support/median.js";
import { fmt, percentile, quick } from "./support/storeSetup.js";
import { makeSmallRepo } from "./support/smallRepo.js";

const CLAIMS = quick ? 10 : 40;
const BATCH = quick ? 8 : 20;
const RUNS = quick ? 1 : 3;
const CAPACITY = 2;

const root = await mkdtemp(join(tmpdir(), "warden-bench-fleet-"));
const repo = await makeSmallRepo(root);
const server = await NatsServer.start();
const input = { repo, prompt: "x\n", agent: "command" as const, command: ["true"] };

/** A worker of this process on its own data directory, until `stop`. */
async function startWorker(capacity: number) {
  const fleet = await FleetStore.open({ servers: server.url, env: {} });
  const dir = await openWorkerDir(await mkdtemp(join(root, "worker-")));
  const worker = new Worker({
    fleet,
    local: dir.local,
    mirrorsDir: dir.mirrorsDir,
    capacity,
    labels: {},
    maxBaseBytes: 1 << 30,
    graceMs: 0,
    reapEveryMs: 10_000,
    env: process.env,
    tell: (news) => {
      if (news.event === "warning") process.stderr.write(`worker: ${news.text}\n`);
    },
  });
  const running = worker.run();
  return {
    stop: async () => {
      worker.stop();
      await running;
      await fleet.close();
    },
  };
}

function endState(outcome: WaitOutcome): string {
  return outcome.kind === "finished" ? outcome.terminal.state : outcome.kind;
}

/** Waits for the task's end and returns the time of its worker's lease. */
async function leasedAt(fleet: FleetStore, id: string): Promise<number> {
  let attached: number | undefined;
  for await (const event of fleet.watch(id)) {
    if (event.type === "attached" && attached === undefined) attached = event.at;
  }
  const state = endState(await fleet.wait(id));
  if (state !== "succeeded") throw new Error(`task ${id} ended ${state}`);
  if (attached === undefined) throw new Error(`task ${id} was never attached`);
  return attached;
}

async function claims(): Promise<{ queued: number[]; fromRun: number[] }> {
  const worker = await startWorker(1);
  const client = await FleetStore.open({ servers: server.url, env: {} });
  const queued: number[] = [];
  const fromRun: number[] = [];
  try {
    for (let i = 0; i < CLAIMS; i++) {
      const begun = performance.timeOrigin + performance.now();
      const { summary } = await submitTask(client, input);
      const submitted = performance.timeOrigin + performance.now();
      const lease = await leasedAt(client, summary.id);
      queued.push(lease - submitted);
      fromRun.push(lease - begun);
    }
  } finally {
    await client.close();
    await worker.stop();
  }
  return { queued, fromRun };
}

/** Tasks a minute of BATCH tasks through one worker of the fleet. */
async function fleetRate(): Promise<number> {
  const worker = await startWorker(CAPACITY);
  const client = await FleetStore.open({ servers: server.url, env: {} });
  try {
    const begun = performance.now();
    const ids = await Promise.all(
      Array.from({ length: BATCH }, async () => (await submitTask(client, input)).summary.id),
    );
    const ends = await Promise.all(ids.map((id) => client.wait(id)));
    const elapsed = performance.now() - begun;
    const failed = ends.filter((end) => endState(end) !== "succeeded").length;
    if (failed > 0) throw new Error(`${failed} fleet tasks did not succeed`);
    return (BATCH / elapsed) * 60_000;
  } finally {
    await client.close();
    await worker.stop();
  }
}

/** Tasks a minute of BATCH tasks made and run by this process on the filesystem store. */
async function localRate(): Promise<number> {
  const tasks = await Tasks.open({ dataDir: await mkdtemp(join(root, "local-")), env: {} });
  const sandboxOptions = { checks: new SandboxCheckMemo() };
  let next = 0;
  const begun = performance.now();
  const lane = async (): Promise<void> => {
    while (next < BATCH) {
      next++;
      const { summary } = await createTask(tasks, input);
      const outcome = await executeTask(tasks, summary.id, { env: {}, sandboxOptions });
      if (outcome.kind !== "finished" || outcome.terminal.state !== "succeeded") {
        throw new Error(`local task ${summary.id} did not succeed`);
      }
    }
  };
  await Promise.all(Array.from({ length: CAPACITY }, lane));
  return (BATCH / (performance.now() - begun)) * 60_000;
}

try {
  const { queued, fromRun } = await claims();
  console.log(`claim latency over ${CLAIMS} tasks, one idle worker on a local nats-server:`);
  console.log(
    `  queued to leased:     p50 ${fmt(median(queued))}  p99 ${fmt(percentile(queued, 99))}`,
  );
  console.log(
    `  submit to leased:     p50 ${fmt(median(fromRun))}  p99 ${fmt(percentile(fromRun, 99))}`,
  );
  console.log(`  queued to leased, in order: ${queued.map((ms) => ms.toFixed(0)).join(" ")}`);
  const fleet: number[] = [];
  const local: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    local.push(await localRate());
    fleet.push(await fleetRate());
  }
  const [f, l] = [median(fleet), median(local)];
  console.log(`${BATCH} no-op tasks, ${CAPACITY} at a time, median of ${RUNS}:`);
  console.log(`  filesystem store, this process: ${l.toFixed(0)} tasks/min`);
  console.log(`  one fleet worker:               ${f.toFixed(0)} tasks/min`);
  console.log(`  fleet / filesystem: ${(f / l).toFixed(2)}`);
} finally {
  await server.stop();
  await rm(root, { recursive: true, force: true });
}
