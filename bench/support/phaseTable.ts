// Shared by the benchmarks that take --trace: the phases one WARDEN_TRACE file holds, read back
// and printed as a table.
import { readFile } from "node:fs/promises";
import type { TracedPhase } from "../../src/lang/index.js";

/** The phases of a trace file, in the order they were written. */
export async function readPhases(file: string): Promise<TracedPhase[]> {
  return (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as TracedPhase);
}

/** One run's phases, each with its start after the first phase's start and its duration. */
export function printRun(phases: readonly TracedPhase[]): void {
  const origin = Math.min(...phases.map((phase) => phase.start));
  console.log(`  ${"side  phase".padEnd(60)} ${"start".padStart(8)} ${"took".padStart(8)}`);
  for (const phase of [...phases].sort((a, b) => a.start - b.start)) {
    const key = `${phase.side.padEnd(5)} ${phase.name}`.slice(0, 60);
    console.log(
      `  ${key.padEnd(60)} ${(phase.start - origin).toFixed(1).padStart(8)} ${(phase.end - phase.start).toFixed(1).padStart(8)}`,
    );
  }
}
