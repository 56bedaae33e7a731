// Shared by the agent benchmarks: one task of a real agent through warden, from create to its
// recorded end, timed; the median of several runs after a warm-up; and the printed comparison.
import { performance } from "node:perf_hooks";
import { createTask, executeTask } from "../../src/host/index.js";
import type { AgentName } from "../../src/protocol/index.js";
import type { Tasks } from "../../src/store/index.js";
import { median } from "./median.js";
import type { PairedMedians } from "./pairedRuns.js";

/** Runs one do-nothing task of `agent` on `repo` to its end; rejects unless it succeeded. */
export async function timeWardenTask(
  tasks: Tasks,
  repo: string,
  agent: AgentName,
  env: Record<string, string>,
): Promise<number> {
  const started = performance.now();
  const { summary } = await createTask(tasks, { repo, prompt: "do nothing", agent });
  const outcome = await executeTask(tasks, summary.id, { env });
  const took = performance.now() - started;
  if (outcome.kind !== "finished" || outcome.terminal.state !== "succeeded") {
    throw new Error(`the task did not succeed: ${JSON.stringify(outcome)}`);
  }
  return took;
}

/** The median of `runs` calls after one warm-up, which puts the agent's program in the cache. */
export async function medianOf(runs: number, fn: (run: number) => Promise<number>) {
  await fn(-1);
  const took: number[] = [];
  for (let i = 0; i < runs; i++) took.push(await fn(i));
  return median(took);
}

/** Prints the baseline and warden's figure, and the median ratio of the pairs. */
export function printComparison(title: string, baseline: string, measured: PairedMedians): void {
  const { base, warden, ratio } = measured;
  console.log(title);
  const row = (label: string, ms: number): void => {
    console.log(
      `  ${label.padEnd(52)} ${ms.toFixed(0).padStart(6)} ms   ratio ${(ms / base).toFixed(2)}x`,
    );
  };
  row(baseline, base);
  row("warden task: bwrap, relay, runner, channel, verify", warden);
  console.log(`  warden's own part: ${(warden - base).toFixed(0)} ms`);
  console.log(`  median ratio of the pairs (each pair run side by side): ${ratio.toFixed(2)}x`);
}
