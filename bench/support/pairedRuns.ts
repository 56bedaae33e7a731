// Shared by the benchmarks that compare warden with a baseline: runs of the two in pairs, side
// by side, so a machine whose speed drifts moves both of a pair alike.
import { median } from "./median.js";

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
