// What running Claude Code as a warden task costs: a one-turn task through warden (create,
// attach, share, the network gate and API relay, bwrap, the runner, the channel, receive,
// verify, record) against the same Claude Code run directly (`claude -p` with the adapter's
// argv, its stdin closed after the prompt), both against the same scripted Messages API on
// 127.0.0.1, in pairs run side by side. Medians of several pairs, and the median of their ratios.
//
// With --trace, one more task runs with WARDEN_TRACE and its phases (host and runner) are printed.
//
//   npm run build && node --import tsx bench/claudeOverhead.ts [--quick] [--trace]
import "./support/withoutExtraCaCerts.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Tasks } from "../src/store/index.js";
import { claudeUnavailable, startClaude } from "../test/support/claudeRun.js";
import { startScriptedAnthropic, type ScriptedTurn } from "../test/support/scriptedAnthropic.js";
import { makeRepo } from "../test/support/share.js";
import { TRACE_ENV } from "../src/lang/index.js";
import { printComparison, timeWardenTask } from "./support/agentTask.js";
import { pairedMedians } from "./support/pairedRuns.js";
import { printRun, readPhases } from "./support/phaseTable.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 7;
const SCRIPT: readonly ScriptedTurn[] = [{ kind: "text", text: "Nothing to do." }];

const why = claudeUnavailable();
if (why !== undefined) {
  console.log(`skipped: ${why}`);
  process.exit(0);
}

const root = await mkdtemp(join(tmpdir(), "warden-bench-claude-"));
const { repo } = await makeRepo(join(root, "repo"));
const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });

async function direct(): Promise<number> {
  const api = await startScriptedAnthropic(SCRIPT);
  try {
    const started = performance.now();
    const run = await startClaude({ apiUrl: api.url, cwd: repo, prompt: "do nothing" });
    run.closeStdin();
    const exit = await run.exited;
    const took = performance.now() - started;
    if (exit.exitCode !== 0) throw new Error(`claude exited ${exit.exitCode}: ${exit.stderr}`);
    return took;
  } finally {
    await api.close();
  }
}

async function throughWarden(trace?: string): Promise<number> {
  const api = await startScriptedAnthropic(SCRIPT);
  try {
    return await timeWardenTask(tasks, repo, "claude", {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: "sk-ant-bench-real-key",
      ...(trace === undefined ? {} : { [TRACE_ENV]: trace }),
    });
  } finally {
    await api.close();
  }
}

try {
  const measured = await pairedMedians(RUNS, direct, () => throughWarden());
  printComparison(
    `a one-turn Claude Code run against a scripted API on loopback, median of ${RUNS} pairs:`,
    "claude -p, run directly (baseline)",
    measured,
  );
  if (process.argv.includes("--trace")) {
    const file = join(root, "trace.jsonl");
    await throughWarden(file);
    console.log("one traced task, ms after its first phase:");
    printRun(await readPhases(file));
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
