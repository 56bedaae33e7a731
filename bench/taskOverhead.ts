// Whole-task overhead: a no-op agent (`true`) run as a warden task on a small repository (create,
// attach, share, gate, bwrap, runner, receive, verify, record), against the least a script could
// do for the same: `git bundle create` + `git clone` + the same no-op. Median of several runs.
// The last row times the whole `warden run` process from outside (the built CLI, so it includes
// Node's start and module loading), as a person running it sees it.
// Where the time goes, phase by phase (host and runner): bench/taskTrace.ts.
// Run: npm run build && node --import tsx bench/taskOverhead.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { createTask, executeTask, type SandboxChoice } from "../src/host/index.js";
import { Tasks } from "../src/store/index.js";
import {
  GIT_ENV,
  SMALL_REPO_FILES,
  bundleCloneBaseline,
  makeSmallRepo,
} from "./support/smallRepo.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 11;

const root = await mkdtemp(join(tmpdir(), "warden-bench-task-"));
const repo = await makeSmallRepo(root);
const baseline = bundleCloneBaseline(root, repo);

const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
async function task(sandbox: SandboxChoice): Promise<number> {
  const started = performance.now();
  const { summary } = await createTask(tasks, {
    repo,
    prompt: "nothing\n",
    agent: "command",
    command: ["true"],
    sandbox,
  });
  const outcome = await executeTask(tasks, summary.id, { env: {} });
  const took = performance.now() - started;
  if (outcome.kind !== "finished" || outcome.terminal.state !== "succeeded") {
    throw new Error(`the no-op task did not succeed: ${JSON.stringify(outcome)}`);
  }
  return took;
}

const CLI_MAIN = fileURLToPath(new URL("../dist/cli/warden.cjs", import.meta.url));

/** One `warden run` of the no-op task, a whole process, in the repository. */
function wholeRun(): number {
  const started = performance.now();
  execFileSync(
    process.execPath,
    [CLI_MAIN, "run", "-q", "--agent", "command", "--prompt", "nothing", "--", "true"],
    {
      cwd: repo,
      env: { ...GIT_ENV, WARDEN_DATA_DIR: join(root, "data-cli") },
      stdio: "ignore",
    },
  );
  return performance.now() - started;
}

async function measure(fn: () => number | Promise<number>): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await fn());
  return median(runs);
}

try {
  const base = await measure(baseline);
  const none = await measure(() => task("none"));
  const bwrap = await measure(() => task("bwrap"));
  const whole = await measure(wholeRun);
  console.log(`a no-op agent on a repository of ${SMALL_REPO_FILES} files, median of ${RUNS}:`);
  const row = (name: string, ms: number): void => {
    console.log(
      `  ${name.padEnd(48)} ${ms.toFixed(0).padStart(6)} ms   ratio ${(ms / base).toFixed(2)}x`,
    );
  };
  row("git bundle create + git clone + true (baseline)", base);
  row("warden task, sandbox none", none);
  row("warden task, sandbox bwrap", bwrap);
  row("`warden run` as a whole process, sandbox bwrap", whole);
} finally {
  await rm(root, { recursive: true, force: true });
}
