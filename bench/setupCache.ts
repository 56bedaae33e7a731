// What the setup cache saves: a task whose setup takes a few seconds (it writes 2,000 files into
// node_modules and sleeps 2 s, as an install that downloads would), its first run (setup runs and
// its snapshot is kept) against its second (the snapshot is restored, setup does not run), and
// the same task without any setup as the floor. Each round uses a fresh data directory, so every
// first run is a cache miss. Median of several rounds.
// Run: npm run build && node --import tsx bench/setupCache.ts [--quick]
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createTask, executeTask } from "../src/host/index.js";
import { Tasks } from "../src/store/index.js";
import { writeFile } from "node:fs/promises";
import { median } from "./support/median.js";
import { makeSmallRepo, runQuietly } from "./support/smallRepo.js";

const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 3 : 7;
const FILES = 2000;
const SETUP = [
  `mkdir -p node_modules/dep && for i in $(seq 1 ${FILES}); do echo "module $i" > node_modules/dep/m$i.js; done`,
  "sleep 2",
];
// The agent checks that what setup made is there, so a restore that lost it would fail the task.
const CHECK = ["sh", "-c", `test "$(ls node_modules/dep | wc -l)" -eq ${FILES}`];

const root = await mkdtemp(join(tmpdir(), "warden-bench-setup-"));
const repo = await makeSmallRepo(root);
// As in a real project, what setup installs is ignored, and a lockfile keys the cache.
await writeFile(join(repo, ".gitignore"), "node_modules/\n");
await writeFile(join(repo, "package-lock.json"), '{"lockfileVersion": 3}\n');
runQuietly("git", ["add", "."], repo);
runQuietly(
  "git",
  ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "lock"],
  repo,
);

async function task(tasks: Tasks, setup: boolean): Promise<number> {
  const started = performance.now();
  const { summary } = await createTask(tasks, {
    repo,
    prompt: "use the dependencies\n",
    agent: "command",
    command: CHECK.slice(0, 2).concat(setup ? CHECK.slice(2) : ["true"]),
    ...(setup ? { setup: { commands: SETUP } } : {}),
  });
  const outcome = await executeTask(tasks, summary.id, { env: {} });
  const took = performance.now() - started;
  if (outcome.kind !== "finished" || outcome.terminal.state !== "succeeded") {
    throw new Error(`the task did not succeed: ${JSON.stringify(outcome)}`);
  }
  return took;
}

const first: number[] = [];
const second: number[] = [];
const none: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const tasks = await Tasks.open({ dataDir: join(root, `data-${round}`), env: {} });
    first.push(await task(tasks, true));
    second.push(await task(tasks, true));
    none.push(await task(tasks, false));
  }
  const [a, b, c] = [median(first), median(second), median(none)];
  console.log(`setup cache, median of ${ROUNDS} rounds (setup: ${FILES} files and sleep 2)`);
  console.log(`  first run, setup runs and is kept    ${a.toFixed(0).padStart(6)} ms`);
  console.log(`  second run, from the cache           ${b.toFixed(0).padStart(6)} ms`);
  console.log(`  no setup at all (the floor)          ${c.toFixed(0).padStart(6)} ms`);
  console.log(
    `  first / second: ${(a / b).toFixed(2)}x; second / no setup: ${(b / c).toFixed(2)}x`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
