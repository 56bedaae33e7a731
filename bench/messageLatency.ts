// How long a message waiting for a running Claude Code task takes to reach the model: the gap
// between the model's first request and its next one, which carries the message, with the real
// CLI against the scripted Messages API. Baseline: the same CLI fed by a harness that writes the
// message to its stdin the moment it reads the first `result` line (the least any runner can
// do). Measured: the built runner, asking a host on control.sock (test/guest/fakeHost.ts) at the
// turn boundary. Also printed: from the host handing out the message to the model's request.
// Medians of 7 runs (3 with --quick).
//
//   npm run build && node --import tsx bench/messageLatency.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, makeTask, receivedOf, runGuest } from "../test/support/share.js";
import {
  CLAUDE_BIN,
  PLACEHOLDER_KEY,
  claudeUnavailable,
  startClaude,
} from "../test/support/claudeRun.js";
import {
  startScriptedAnthropic,
  type ScriptedAnthropic,
  type ScriptedTurn,
} from "../test/support/scriptedAnthropic.js";
import { startFakeHost } from "../test/guest/fakeHost.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 7;
const SCRIPT: readonly ScriptedTurn[] = [
  { kind: "text", text: "First answer." },
  { kind: "text", text: "Second answer." },
];
const MESSAGE = "and a second question";

/** When the scripted API received its first and its second conversation request. */
function turnTimes(api: ScriptedAnthropic): Promise<[number, number]> {
  const at = (turn: number) =>
    api.waitFor((r) => r.kind === "turn" && r.turn === turn, 60_000).then(() => performance.now());
  return Promise.all([at(0), at(1)]);
}

async function direct(root: string): Promise<number> {
  const api = await startScriptedAnthropic(SCRIPT);
  try {
    const cwd = join(root, `direct-${Math.random().toString(36).slice(2)}`);
    await git(root, "init", "-q", "-b", "main", cwd);
    const times = turnTimes(api);
    const run = await startClaude({ apiUrl: api.url, cwd, prompt: "first question" });
    await run.waitForEvent((e) => e.type === "result");
    run.send(MESSAGE);
    const [first, second] = await times;
    run.closeStdin();
    const exit = await run.exited;
    if (exit.exitCode !== 0) throw new Error(`claude exited ${exit.exitCode}: ${exit.stderr}`);
    return second - first;
  } finally {
    await api.close();
  }
}

async function throughRunner(): Promise<{ gap: number; handOut: number }> {
  const api = await startScriptedAnthropic(SCRIPT);
  const host = await startFakeHost({ messages: [MESSAGE] });
  const fixture = await makeTask({
    taskJson: JSON.stringify({
      agent: "claude",
      agentProgram: CLAUDE_BIN,
      env: { ANTHROPIC_API_KEY: PLACEHOLDER_KEY, ANTHROPIC_BASE_URL: api.url },
    }),
  });
  try {
    const home = join(fixture.root, "home");
    await mkdir(home);
    const times = turnTimes(api);
    const run = await runGuest(fixture, {
      env: { PATH: process.env.PATH, HOME: home, WARDEN_GUEST_SOCKETS: host.dir },
    });
    const { result } = receivedOf(run);
    if (result.agentExitCode !== 0 || host.inbox[0]?.reply !== "Second answer.") {
      throw new Error(`the run did not deliver the message: ${JSON.stringify(result)}`);
    }
    const [first, second] = await times;
    return { gap: second - first, handOut: second - (host.inbox[0].takenAt ?? Number.NaN) };
  } finally {
    await Promise.all([api.close(), host.close(), fixture.cleanup()]);
  }
}

async function main(): Promise<void> {
  const unavailable = claudeUnavailable();
  if (unavailable !== undefined) {
    console.log(`skipped: ${unavailable}`);
    return;
  }
  const root = await mkdtemp(join(tmpdir(), "warden-bench-latency-"));
  try {
    // One of each first, unmeasured: the CLI's and the runner's first start warms the caches.
    await direct(root);
    await throughRunner();
    const directGaps: number[] = [];
    const runnerGaps: number[] = [];
    const handOuts: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      directGaps.push(await direct(root));
      const measured = await throughRunner();
      runnerGaps.push(measured.gap);
      handOuts.push(measured.handOut);
    }
    const base = median(directGaps);
    const gap = median(runnerGaps);
    console.log(`message latency, medians of ${RUNS} runs (model request to the next one):`);
    console.log(`  direct stdin write after the result (baseline): ${base.toFixed(1)} ms`);
    console.log(
      `  through the runner and control.sock:            ${gap.toFixed(1)} ms  (${(gap / base).toFixed(2)}x, ${gap >= base ? "+" : ""}${(gap - base).toFixed(1)} ms)`,
    );
    console.log(
      `  host hands out the message -> model request:    ${median(handOuts).toFixed(1)} ms`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
