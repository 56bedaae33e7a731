// What checkpoints cost and what a resume saves, with the real Claude Code CLI in bwrap against
// a scripted Messages API on 127.0.0.1, median of several runs:
// - per turn: the runner's checkpoint time (its guest log's "N checkpoints kept, T ms in all")
//   against the turn's own time (the task's agent step over its turns), in a task of TURNS tool
//   calls that each change the workspace;
// - resume: the attach of a task that starts from a kept checkpoint (a continuation of a
//   finished task: its session resumed, its workspace from its head) against a fresh task's
//   attach of the same one-turn script.
//
//   npm run build && node --import tsx bench/checkpoints.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { continueTask, createTask, executeTask, taskLayout } from "../src/host/index.js";
import { Tasks } from "../src/store/index.js";
import { claudeUnavailable } from "../test/support/claudeRun.js";
import { startScriptedAnthropic, type ScriptedTurn } from "../test/support/scriptedAnthropic.js";
import { makeRepo } from "../test/support/share.js";
import { medianOf } from "./support/agentTask.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 5;
const TURNS = 8;

const why = claudeUnavailable();
if (why !== undefined) {
  console.log(`skipped: ${why}`);
  process.exit(0);
}

const root = await mkdtemp(join(tmpdir(), "warden-bench-checkpoints-"));
const { repo } = await makeRepo(join(root, "repo"));
const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });

function env(url: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: "sk-ant-bench-real-key",
  };
}

/** Runs a task to success; returns its id and how long its attach took. */
async function attach(id: string, url: string): Promise<number> {
  const started = performance.now();
  const outcome = await executeTask(tasks, id, { env: env(url) });
  const took = performance.now() - started;
  if (outcome.kind !== "finished" || outcome.terminal.state !== "succeeded") {
    throw new Error(`the task did not succeed: ${JSON.stringify(outcome)}`);
  }
  return took;
}

const many: ScriptedTurn[] = [
  ...Array.from({ length: TURNS }, (_, i) => ({
    kind: "tool_use" as const,
    name: "Bash",
    input: { command: `echo line ${i} >> turns.txt && echo ${i} > file${i}.txt` },
  })),
  { kind: "text", text: "Done." },
];

/** One task of TURNS turns: the checkpoints' share of each turn's time. */
async function checkpointShare(): Promise<{ perTurnMs: number; checkpointMs: number }> {
  const api = await startScriptedAnthropic(many);
  try {
    const { summary } = await createTask(tasks, { repo, prompt: "take turns", agent: "claude" });
    const took = await attach(summary.id, api.url);
    const log = await readFile(taskLayout(tasks.dataDir, summary.id).guestLog, "utf8");
    const kept = /(\d+) checkpoints kept, (\d+) ms in all/.exec(log);
    if (kept === null) throw new Error("the guest log names no checkpoints");
    return { perTurnMs: took / (TURNS + 1), checkpointMs: Number(kept[2]) / (TURNS + 1) };
  } finally {
    await api.close();
  }
}

const shares: { perTurnMs: number; checkpointMs: number }[] = [];
await medianOf(RUNS, async () => {
  const one = await checkpointShare();
  shares.push(one);
  return one.checkpointMs / one.perTurnMs;
});
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const turnMs = median(shares.map((s) => s.perTurnMs));
const checkpointMs = median(shares.map((s) => s.checkpointMs));
console.log(
  `checkpoints, a task of ${TURNS} tool calls (median of ${RUNS}; the machine is shared)`,
);
console.log(
  `  a turn (the task's attach over its turns)          ${turnMs.toFixed(0).padStart(6)} ms   ratio 1.00x`,
);
console.log(
  `  the checkpoints of a turn                          ${checkpointMs.toFixed(0).padStart(6)} ms   ratio ${(checkpointMs / turnMs).toFixed(3)}x`,
);

const one: ScriptedTurn[] = [{ kind: "text", text: "Nothing to do." }];
const fresh = await medianOf(RUNS, async () => {
  const api = await startScriptedAnthropic(one);
  try {
    const { summary } = await createTask(tasks, { repo, prompt: "do nothing", agent: "claude" });
    return await attach(summary.id, api.url);
  } finally {
    await api.close();
  }
});
const resumed = await medianOf(RUNS, async () => {
  const api = await startScriptedAnthropic([...one, ...one]);
  try {
    const { summary } = await createTask(tasks, { repo, prompt: "do nothing", agent: "claude" });
    await attach(summary.id, api.url);
    const next = await continueTask(tasks, summary.id, { prompt: "and again" });
    return await attach(next.id, api.url);
  } finally {
    await api.close();
  }
});
console.log(`resume from a checkpoint (median of ${RUNS})`);
console.log(
  `  a fresh task's attach                               ${fresh.toFixed(0).padStart(6)} ms   ratio 1.00x`,
);
console.log(
  `  an attach that resumes a kept checkpoint            ${resumed.toFixed(0).padStart(6)} ms   ratio ${(resumed / fresh).toFixed(2)}x`,
);
await rm(root, { recursive: true, force: true });
