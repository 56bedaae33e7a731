// Where a no-op task's time goes, phase by phase: `warden run --sandbox bwrap -- true` on a
// 200-file repository, as a person runs it (the built CLI, a whole process), with WARDEN_TRACE
// set so that the host and the runner time their phases into one file. Prints each phase's
// median start (after the bench spawned the process) and median duration over several runs,
// host and guest on one clock, beside the whole process and the baseline of
// bench/taskOverhead.ts (git bundle create + git clone + true).
// Run: npm run build && node --import tsx bench/taskTrace.ts [--quick] [--runs N]
import "./support/withoutExtraCaCerts.js";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import {
  GIT_ENV,
  SMALL_REPO_FILES,
  bundleCloneBaseline,
  makeSmallRepo,
} from "./support/smallRepo.js";
import { median } from "./support/median.js";
import type { TracedPhase } from "../src/lang/index.js";

const quick = process.argv.includes("--quick");
const runsFlag = process.argv.indexOf("--runs");
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : quick ? 5 : 11;

const root = await mkdtemp(join(tmpdir(), "warden-bench-trace-"));
const repo = await makeSmallRepo(root);
const baseline = bundleCloneBaseline(root, repo);

const CLI_MAIN = fileURLToPath(new URL("../dist/cli/warden.cjs", import.meta.url));

/** A phase as the table shows it: milliseconds from the spawn of the process. */
interface Row {
  readonly key: string;
  readonly start: number;
  readonly took: number;
}

/** One traced `warden run`: its phases, and the whole process as two rows of the bench's own. */
let traces = 0;
async function tracedRun(): Promise<{ whole: number; rows: Row[] }> {
  traces++;
  const file = join(root, `trace-${traces}.jsonl`);
  const spawned = performance.timeOrigin + performance.now();
  execFileSync(
    process.execPath,
    [
      CLI_MAIN,
      "run",
      "-q",
      "--sandbox",
      "bwrap",
      "--agent",
      "command",
      "--prompt",
      "nothing",
    ].concat(["--", "true"]),
    {
      cwd: repo,
      env: { ...GIT_ENV, WARDEN_DATA_DIR: join(root, "data-cli"), WARDEN_TRACE: file },
      stdio: "ignore",
    },
  );
  const exited = performance.timeOrigin + performance.now();
  const phases = (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as TracedPhase);
  const rows: Row[] = phases.map((phase) => ({
    key: `${phase.side.padEnd(5)} ${phase.name}`,
    start: phase.start - spawned,
    took: phase.end - phase.start,
  }));
  const executed = phases.find((phase) => phase.name === "executeTask");
  if (executed !== undefined) {
    rows.push({
      key: "bench after executeTask until the process exited",
      start: executed.end - spawned,
      took: exited - executed.end,
    });
  }
  rows.push({ key: "bench the whole process", start: 0, took: exited - spawned });
  return { whole: exited - spawned, rows };
}

try {
  const baselines: number[] = [];
  baseline();
  for (let i = 0; i < RUNS; i++) baselines.push(baseline());
  await tracedRun();
  const all: Row[][] = [];
  for (let i = 0; i < RUNS; i++) all.push((await tracedRun()).rows);
  const base = median(baselines);
  // A phase that runs more than once a task (a git step) is keyed by its order within the run.
  const byKey = new Map<string, { starts: number[]; tooks: number[] }>();
  for (const rows of all) {
    const seen = new Map<string, number>();
    for (const row of rows) {
      const n = (seen.get(row.key) ?? 0) + 1;
      seen.set(row.key, n);
      const key = n === 1 ? row.key : `${row.key} (#${n})`;
      const entry = byKey.get(key) ?? { starts: [], tooks: [] };
      entry.starts.push(row.start);
      entry.tooks.push(row.took);
      byKey.set(key, entry);
    }
  }
  const table = [...byKey.entries()]
    .map(([key, { starts, tooks }]) => ({ key, start: median(starts), took: median(tooks) }))
    .sort((a, b) => a.start - b.start || b.took - a.took);
  console.log(
    `a no-op \`warden run --sandbox bwrap -- true\` on ${SMALL_REPO_FILES} files, traced, median of ${RUNS}`,
  );
  console.log(`baseline (git bundle create + git clone + true): ${base.toFixed(0)} ms`);
  console.log(`${"side  phase".padEnd(62)} ${"start".padStart(7)} ${"took".padStart(7)}`);
  for (const row of table) {
    console.log(
      `${row.key.slice(0, 62).padEnd(62)} ${row.start.toFixed(1).padStart(7)} ${row.took
        .toFixed(1)
        .padStart(7)}`,
    );
  }
  const whole = byKey.get("bench the whole process");
  if (whole !== undefined) {
    const ms = median(whole.tooks);
    console.log(`whole process ${ms.toFixed(0)} ms = ${(ms / base).toFixed(2)}x the baseline`);
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
