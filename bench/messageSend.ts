// How long a message sent to a running Claude Code task takes to reach the model, through the
// whole system: `send` puts it in the store's inbox while the agent works; at the turn boundary
// the runner in the bwrap sandbox asks the host over control.sock, the host takes it from the
// inbox (under its lock, an atomic write) and the runner writes it to Claude Code's stdin.
// Measured: the gap between the model request that ends the turn and the next one, which
// carries the message. Baseline: the same CLI, outside any sandbox, fed by a harness that
// writes the message to its stdin the moment it reads the `result` line (the least any runner
// can do). Also printed: the time of the store's `send` itself. Medians of 7 runs (3 with --quick).
//
//   npm run build && node --import tsx bench/messageSend.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createTask, executeTask } from "../src/host/index.js";
import { Tasks } from "../src/store/index.js";
import { claudeUnavailable, startClaude } from "../test/support/claudeRun.js";
import {
  startScriptedAnthropic,
  type ScriptedAnthropic,
  type ScriptedTurn,
} from "../test/support/scriptedAnthropic.js";
import { makeRepo } from "../test/support/share.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 7;
const MESSAGE = "and one more thing";
/** A tool call that keeps the first turn busy while the message is sent. */
const SCRIPT: readonly ScriptedTurn[] = [
  {
    kind: "tool_use",
    name: "Bash",
    input: { command: "for i in $(seq 1 8); do sleep 0.1; done" },
  },
  { kind: "text", text: "Step one is done." },
  { kind: "text", text: "Here is the one more thing." },
];

/** When the scripted API received the request that ends the turn, and the one after it. */
function gap(api: ScriptedAnthropic): Promise<number> {
  const at = (turn: number) =>
    api.waitFor((r) => r.kind === "turn" && r.turn === turn, 60_000).then(() => performance.now());
  return Promise.all([at(1), at(2)]).then(([before, after]) => after - before);
}

const why = claudeUnavailable();
if (why !== undefined) {
  console.log(`skipped: ${why}`);
  process.exit(0);
}

const root = await mkdtemp(join(tmpdir(), "warden-bench-send-"));
const { repo } = await makeRepo(join(root, "repo"));
const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
const sendTimes: number[] = [];

async function direct(): Promise<number> {
  const api = await startScriptedAnthropic(SCRIPT);
  try {
    const measured = gap(api);
    const run = await startClaude({ apiUrl: api.url, cwd: repo, prompt: "step one" });
    await run.waitForEvent((e) => e.type === "result");
    run.send(MESSAGE);
    const took = await measured;
    await run.waitForEvent((e) => e.type === "result" && e.message?.startsWith("Here") === true);
    run.closeStdin();
    await run.exited;
    return took;
  } finally {
    await api.close();
  }
}

async function throughWarden(): Promise<number> {
  const api = await startScriptedAnthropic(SCRIPT);
  try {
    const measured = gap(api);
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: "sk-ant-bench-real-key",
    };
    const { summary } = await createTask(tasks, { repo, prompt: "step one", agent: "claude" });
    const running = executeTask(tasks, summary.id, { env });
    await api.waitFor((r) => r.kind === "turn" && r.turn === 0, 60_000);
    const started = performance.now();
    await tasks.send(summary.id, MESSAGE, { from: null });
    sendTimes.push(performance.now() - started);
    const took = await measured;
    const outcome = await running;
    if (outcome.kind !== "finished" || outcome.terminal.state !== "succeeded") {
      throw new Error(`the task did not succeed: ${JSON.stringify(outcome)}`);
    }
    const [message] = await tasks.messages(summary.id);
    if (message?.state !== "delivered") throw new Error("the message was not delivered");
    return took;
  } finally {
    await api.close();
  }
}

async function measure(fn: () => Promise<number>): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await fn());
  return median(runs);
}

try {
  const base = await measure(direct);
  const warden = await measure(throughWarden);
  console.log(
    `from the request that ends a turn to the next, which carries the message, median of ${RUNS}:`,
  );
  const row = (name: string, ms: number): void => {
    console.log(
      `  ${name.padEnd(60)} ${ms.toFixed(0).padStart(5)} ms   ratio ${(ms / base).toFixed(2)}x`,
    );
  };
  row("harness writes to claude's stdin at the result (baseline)", base);
  row("warden: inbox, control.sock, runner in bwrap, stdin", warden);
  console.log(`  the store's send itself: ${median(sendTimes).toFixed(1)} ms (median)`);
} finally {
  await rm(root, { recursive: true, force: true });
}
