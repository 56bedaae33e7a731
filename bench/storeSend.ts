// The cost of `send`: one message into each of 1,000 tasks, against writing the same bytes to
// a file in each task's directory, plainly and durably (temp file, fsync, rename, fsync dir).
// Run: node --import tsx bench/storeSend.ts [--quick]
import { open, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Tasks } from "../src/store/index.js";
import { median } from "./support/median.js";
import { fmt, populate, quick } from "./support/storeSetup.js";

const COUNT = quick ? 200 : 1000;
const RUNS = quick ? 2 : 3;
const BODY = "Please also update the changelog and keep the public API as it is.";

async function durableWrite(path: string, bytes: string): Promise<void> {
  const temp = `${path}.tmp`;
  const handle = await open(temp, "w", 0o600);
  await handle.writeFile(bytes);
  await handle.sync();
  await handle.close();
  await rename(temp, path);
  const dir = await open(join(path, ".."), "r");
  await dir.sync();
  await dir.close();
}

async function run(): Promise<{ plain: number; durable: number; send: number }> {
  const dataDir = await mkdtemp(join(tmpdir(), "warden-bench-send-"));
  try {
    const tasks = await Tasks.open({ dataDir, env: {} });
    const ids = populate(dataDir, COUNT, ["created"]);
    const dirs = ids.map((id) => join(dataDir, "tasks", id));
    const time = async (fn: (i: number) => Promise<unknown>): Promise<number> => {
      const start = performance.now();
      for (let i = 0; i < COUNT; i++) await fn(i);
      return (performance.now() - start) / COUNT;
    };
    const message = JSON.stringify({
      messages: [{ n: 1, from: null, at: Date.now(), body: BODY, state: "pending" }],
    });
    const plain = await time((i) => writeFile(join(dirs[i] ?? "", "plain.json"), message));
    const durable = await time((i) => durableWrite(join(dirs[i] ?? "", "durable.json"), message));
    const send = await time((i) => tasks.send(ids[i] ?? "", BODY));
    return { plain, durable, send };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const results: Array<{ plain: number; durable: number; send: number }> = [];
for (let r = 0; r < RUNS; r++) results.push(await run());
const plain = median(results.map((r) => r.plain));
const durable = median(results.map((r) => r.durable));
const send = median(results.map((r) => r.send));
console.log(`${COUNT} sends into ${COUNT} tasks, per operation, median of ${RUNS} runs:`);
console.log(`  writeFile of the same bytes             ${fmt(plain)}`);
console.log(`  temp + fsync + rename + fsync dir       ${fmt(durable)}`);
console.log(`  tasks.send()                            ${fmt(send)}`);
console.log(`  ratio send / writeFile                  ${(send / plain).toFixed(1)}x`);
console.log(`  ratio send / durable write              ${(send / durable).toFixed(2)}x`);
