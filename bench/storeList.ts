// How long `list` takes over 10,000 tasks (a mix of created, interrupted, finished and a few
// running), against a bare readdir of the same directory and readdir plus reading each spec.
// Run: node --import tsx bench/storeList.ts [--quick]
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tasks, type Attachment } from "../src/store/index.js";
import { fmt, medianTime, populate, quick } from "./support/storeSetup.js";

const COUNT = quick ? 1000 : 10_000;
const RUNS = quick ? 3 : 7;
const RUNNING = 10;

const dataDir = await mkdtemp(join(tmpdir(), "warden-bench-list-"));
try {
  const tasks = await Tasks.open({ dataDir, env: {} });
  const ids = populate(dataDir, COUNT, ["created", "interrupted", "finished"]);
  const held: Attachment[] = [];
  for (const id of ids.slice(0, RUNNING * 3).filter((_, i) => i % 3 === 0)) {
    held.push(await tasks.attach(id));
  }
  const tasksDir = join(dataDir, "tasks");

  // Warm the page cache the same way for everyone.
  await tasks.list();
  const readdirMs = await medianTime(RUNS, () => readdir(tasksDir));
  const specsMs = await medianTime(RUNS, async () => {
    for (const id of await readdir(tasksDir)) readFileSync(join(tasksDir, id, "spec.json"));
  });
  let listed = 0;
  const listMs = await medianTime(RUNS, async () => {
    listed = (await tasks.list()).length;
  });
  if (listed !== COUNT) throw new Error(`list gave ${listed} tasks, not ${COUNT}`);
  const states = new Map<string, number>();
  for (const t of await tasks.list()) states.set(t.state, (states.get(t.state) ?? 0) + 1);

  console.log(
    `list of ${COUNT} tasks (${[...states].map(([s, n]) => `${n} ${s}`).join(", ")}), median of ${RUNS}:`,
  );
  console.log(`  readdir                      ${fmt(readdirMs)}`);
  console.log(`  readdir + read every spec    ${fmt(specsMs)}`);
  console.log(`  tasks.list()                 ${fmt(listMs)}  (${fmt(listMs / COUNT)} per task)`);
  console.log(`  ratio list / readdir         ${(listMs / readdirMs).toFixed(1)}x`);
  console.log(`  ratio list / readdir+specs   ${(listMs / specsMs).toFixed(2)}x`);
  for (const h of held) h.release();
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
