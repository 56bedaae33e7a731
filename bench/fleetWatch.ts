// Watch latency through JetStream: a holder appends events at random intervals, a watcher in
// another process (FleetStore.watch on one local nats-server) prints how long after its append
// each event reached it; the baseline is the same through the filesystem store (tasks.watch,
// woken by fs.watch), measured in the same run.
// Run: node --import tsx bench/fleetWatch.ts [--quick]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { FleetStore } from "../src/fleet/index.js";
import { Tasks, type TaskAttachment, type TaskStore } from "../src/store/index.js";
import { NatsServer } from "../test/support/natsServer.js";
import { startLatencyReader } from "./support/latencyReader.js";
import { median } from "./support/median.js";
import { fmt, percentile, quick } from "./support/storeSetup.js";

const EVENTS = quick ? 100 : 300;
const RUNS = quick ? 2 : 3;
/** Both readers are idle and waiting before the first event. */
const SETTLE_MS = 300;

type Kind = "fs" | "fleet";

const wallNow = (): number => performance.timeOrigin + performance.now();

async function openStore(
  kind: Kind,
  where: string,
): Promise<TaskStore & { close?: () => Promise<void> }> {
  return kind === "fs"
    ? Tasks.open({ dataDir: where, env: {} })
    : FleetStore.open({ servers: where, env: {} });
}

/** The reader process: prints "ready", one latency (ms) per event, then "done". */
async function reader(kind: Kind, where: string, id: string): Promise<void> {
  const store = await openStore(kind, where);
  console.log("ready");
  for await (const event of store.watch(id)) {
    const t = (event as { t?: unknown }).t;
    if (typeof t === "number") console.log((wallNow() - t).toFixed(3));
  }
  console.log("done");
  await store.close?.();
}

function startReader(kind: Kind, where: string, id: string) {
  return startLatencyReader(import.meta.filename, [kind, where, id]);
}

async function session(kind: Kind, where: string): Promise<number[]> {
  const store = await openStore(kind, where);
  try {
    const { id } = await store.create({ prompt: `bench watch latency (${kind})`, parent: null });
    const watcher = startReader(kind, where, id);
    await watcher.ready;
    const run: TaskAttachment = await store.attach(id);
    await sleep(SETTLE_MS);
    for (let i = 0; i < EVENTS; i++) {
      await sleep(5 + Math.random() * 20);
      await run.appendEvent("tick", { i, t: wallNow() });
    }
    await run.finish({ state: "succeeded" });
    return await watcher.finished;
  } finally {
    await store.close?.();
  }
}

if (process.argv[2] === "--reader") {
  await reader(process.argv[3] as Kind, process.argv[4] ?? "", process.argv[5] ?? "");
} else {
  const dataDir = await mkdtemp(join(tmpdir(), "warden-bench-fleet-watch-"));
  const server = await NatsServer.start();
  try {
    const rows: Array<{ fs: number[]; fleet: number[] }> = [];
    for (let r = 0; r < RUNS; r++) {
      // Alternated, so neither store always runs on a warmer machine.
      const fleet = r % 2 === 0 ? await session("fleet", server.url) : undefined;
      const fs = await session("fs", dataDir);
      rows.push({ fs, fleet: fleet ?? (await session("fleet", server.url)) });
    }
    const stat = (pick: (row: { fs: number[]; fleet: number[] }) => number[], p: number) =>
      median(rows.map((row) => percentile(pick(row), p)));
    const f50 = stat((r) => r.fs, 50);
    const f99 = stat((r) => r.fs, 99);
    const j50 = stat((r) => r.fleet, 50);
    const j99 = stat((r) => r.fleet, 99);
    const counts = rows.map((r) => `${r.fleet.length}/${r.fs.length}`).join(", ");
    console.log(
      `append → seen by a watcher in another process, ${EVENTS} events 5-25 ms apart, median of ${RUNS} runs (events seen fleet/fs: ${counts}):`,
    );
    console.log(
      `  filesystem store (tasks.watch, fs.watch)    median ${fmt(f50)}   p99 ${fmt(f99)}`,
    );
    console.log(
      `  fleet store (JetStream, one local server)   median ${fmt(j50)}   p99 ${fmt(j99)}`,
    );
    console.log(
      `  ratio fleet / filesystem                    median ${(j50 / f50).toFixed(3)}x   p99 ${(j99 / f99).toFixed(3)}x`,
    );
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
