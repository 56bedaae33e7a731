// A reader process of a latency benchmark: the benchmark's own script run again with
// `--reader ...args`, which prints "ready", one latency in ms per line, then "done".
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface LatencyReader {
  /** Settles once the reader follows the task. */
  ready: Promise<void>;
  /** The latencies it printed, once it printed "done". */
  finished: Promise<number[]>;
}

export function startLatencyReader(script: string, args: readonly string[]): LatencyReader {
  const child = spawn(process.execPath, ["--import", "tsx", script, "--reader", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const latencies: number[] = [];
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (onReady = r));
  const finished = new Promise<number[]>((resolve) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line === "ready") onReady();
      else if (line === "done") resolve(latencies);
      else latencies.push(Number(line));
    });
  });
  return { ready, finished };
}
