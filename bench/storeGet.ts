// How long `get` of one task's details takes (what `show`, `send` and the dashboard read: the
// spec, the prompt, the inbox, the approvals, the state), against reading the same task's spec
// and prompt with readFileSync in the same process, over tasks of every state, each read in
// turn. The store reads its small records with blocking calls (src/store/noFollow.ts); through
// Node's thread pool each costs several round trips, which this is the figure for.
// Run: node --import tsx bench/storeGet.ts [--quick]
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tasks } from "../src/store/index.js";
import { fmt, medianTime, populate, quick } from "./support/storeSetup.js";

const COUNT = 100;
const RUNS = quick ? 5 : 15;

const dataDir = await mkdtemp(join(tmpdir(), "warden-bench-get-"));
try {
  const tasks = await Tasks.open({ dataDir, env: {} });
  const ids = populate(dataDir, COUNT, ["created", "interrupted", "finished"]);
  const tasksDir = join(dataDir, "tasks");
  // The first read of each compiles the code it runs and warms the page cache for both.
  for (const id of ids) await tasks.get(id);
  const readMs = await medianTime(RUNS, () => {
    for (const id of ids) {
      readFileSync(join(tasksDir, id, "spec.json"));
      readFileSync(join(tasksDir, id, "prompt.md"));
    }
    return Promise.resolve();
  });
  const getMs = await medianTime(RUNS, async () => {
    for (const id of ids) await tasks.get(id);
  });
  console.log(`get of ${COUNT} tasks one after another, median of ${RUNS}:`);
  console.log(`  readFileSync of spec and prompt   ${fmt(readMs / COUNT)} per task`);
  console.log(`  tasks.get()                       ${fmt(getMs / COUNT)} per task`);
  console.log(`  ratio get / the two reads         ${(getMs / readMs).toFixed(2)}x`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
