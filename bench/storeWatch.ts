// Latency from append to delivery: a watcher in another process (tasks.watch, woken by
// fs.watch) against a reader in another process that polls the file every 100 ms, both
// following the same events as they are written at random intervals.
// Run: node --import tsx bench/storeWatch.ts [--quick]
import { open, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Tasks } from "../src/store/index.js";
import { startLatencyReader } from "./support/latencyReader.js";
import { median } from "./support/median.js";
import { fmt, percentile, quick } from "./support/storeSetup.js";

const EVENTS = quick ? 100 : 300;
const RUNS = quick ? 2 : 3;
const POLL_MS = 100;

const wallNow = (): number => performance.timeOrigin + performance.now();

/** The reader processes: print one latency (ms) per event, then "done". */
async function reader(kind: string, dataDir: string, id: string): Promise<void> {
  const seen = (e: { t?: unknown }): void => {
    if (typeof e.t === "number") console.log((wallNow() - e.t).toFixed(3));
  };
  if (kind === "watch") {
    const tasks = await Tasks.open({ dataDir, env: {} });
    console.log("ready");
    for await (const event of tasks.watch(id)) seen(event as { t?: unknown });
  } else {
    const path = join(dataDir, "tasks", id, "events.jsonl");
    console.log("ready");
    let pos = 0;
    let done = false;
    while (!done) {
      await sleep(POLL_MS);
      const handle = await open(path, "r").catch(() => undefined);
      if (handle === undefined) continue;
      const { size } = await handle.stat();
      const buffer = Buffer.alloc(size - pos);
      await handle.read(buffer, 0, buffer.length, pos);
      await handle.close();
      const text = buffer.toString("utf8");
      const end = text.lastIndexOf("\n") + 1;
      pos += Buffer.byteLength(text.slice(0, end));
      for (const line of text.slice(0, end).split("\n").filter(Boolean)) {
        const event = JSON.parse(line) as { t?: unknown; type: string };
        seen(event);
        if (event.type === "finished") done = true;
      }
    }
  }
  console.log("done");
}

function startReader(kind: string, dataDir: string, id: string) {
  return startLatencyReader(import.meta.filename, [kind, dataDir, id]);
}

async function session(): Promise<{ watch: number[]; poll: number[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), "warden-bench-watch-"));
  try {
    const tasks = await Tasks.open({ dataDir, env: {} });
    const { id } = await tasks.create({ prompt: "bench watch latency" });
    const watch = startReader("watch", dataDir, id);
    const poll = startReader("poll", dataDir, id);
    await Promise.all([watch.ready, poll.ready]);
    const run = await tasks.attach(id);
    await sleep(200); // Both readers are idle, waiting.
    for (let i = 0; i < EVENTS; i++) {
      await sleep(5 + Math.random() * 20);
      run.appendEvent("tick", { i, t: wallNow() });
    }
    await run.finish({ state: "succeeded" });
    return { watch: await watch.finished, poll: await poll.finished };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--reader") {
  await reader(process.argv[3] ?? "", process.argv[4] ?? "", process.argv[5] ?? "");
} else {
  const rows: Array<{ watch: number[]; poll: number[] }> = [];
  for (let r = 0; r < RUNS; r++) rows.push(await session());
  const stat = (
    pick: (row: { watch: number[]; poll: number[] }) => number[],
    f: (v: number[]) => number,
  ) => median(rows.map((row) => f(pick(row))));
  const w50 = stat((r) => r.watch, median);
  const w99 = stat(
    (r) => r.watch,
    (v) => percentile(v, 99),
  );
  const p50 = stat((r) => r.poll, median);
  const p99 = stat(
    (r) => r.poll,
    (v) => percentile(v, 99),
  );
  const counts = rows.map((r) => `${r.watch.length}/${r.poll.length}`).join(", ");
  console.log(
    `append → delivery over ${EVENTS} events written 5-25 ms apart, median of ${RUNS} runs (events seen: ${counts}):`,
  );
  console.log(`  tasks.watch (fs.watch)   median ${fmt(w50)}   p99 ${fmt(w99)}`);
  console.log(`  100 ms polling reader    median ${fmt(p50)}   p99 ${fmt(p99)}`);
  console.log(
    `  ratio watch / poll       median ${(w50 / p50).toFixed(3)}x   p99 ${(w99 / p99).toFixed(3)}x`,
  );
}
