// Shared by the agent benchmarks: one task of a real agent through warden, from create to its
// recorded end, timed; the median of several runs after a warm-up; and the printed comparison.
import { performance } from "node:perf_hooks";
import { createTask, executeTask } from "../../src/host/index.js";
import type { AgentName } from "../../src/protocol/index.js";
import type { Tasks } from "../../src/store/index.js";

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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The median of `runs` calls after one warm-up, which puts the agent's program in the cache. */
export async function medianOf(runs: number, fn: (run: number) => Promise<number>) {
  await fn(-1);
  const took: number[] = [];
  for (let i = 0; i < runs; i++) took.push(await fn(i));
  return median(took);
}

/** The medians of a baseline and of warden's run, and the median of their ratios run by run. */
export interface PairedMedians {
  readonly base: number;
  readonly warden: number;
  /** The median over the pairs of warden / baseline: what the machine's drift moves least. */
  readonly ratio: number;
}

/**
 * Runs the baseline and warden's run in pairs, after one warm-up of each: on a machine whose
 * speed drifts (another tenant's load), two runs side by side see the same machine, as two
 * blocks of runs one after the other do not. Which of a pair goes first alternates.
 */
export async function pairedMedians(
  runs: number,
  baseline: (run: number) => Promise<number>,
  warden: (run: number) => Promise<number>,
): Promise<PairedMedians> {
  await baseline(-1);
  await warden(-1);
  const bases: number[] = [];
  const wardens: number[] = [];
  const ratios: number[] = [];
  for (let i = 0; i < runs; i++) {
    let b: number;
    let w: number;
    if (i % 2 === 0) {
      b = await baseline(i);
      w = await warden(i);
    } else {
      w = await warden(i);
      b = await baseline(i);
    }
    bases.push(b);
    wardens.push(w);
    ratios.push(w / b);
  }
  return { base: median(bases), warden: median(wardens), ratio: median(ratios) };
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
