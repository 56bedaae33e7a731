// Shared by the store's benchmarks: fills a data dir with many tasks quickly, by writing their
// files as the store would (without an fsync each), and measures with medians.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StoredSpec, TerminalRecord } from "../../src/store/index.js";
import { IdGenerator } from "../../src/store/taskId.js";
import { median } from "./median.js";

export type Mix = "created" | "interrupted" | "finished";

/** Writes `count` tasks, cycling through the mix, and returns their ids. */
export function populate(dataDir: string, count: number, mix: readonly Mix[]): string[] {
  const ids = new IdGenerator();
  const now = Date.now();
  const made: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = ids.next();
    const dir = join(dataDir, "tasks", id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const prompt = `Task ${i}: fix the flaky test in module ${i % 97} and explain the cause.\n`;
    const spec: StoredSpec = {
      version: 1,
      id,
      createdAt: now,
      repo: "/home/me/src/project",
      base: "0123456789abcdef0123456789abcdef01234567",
      settings: { agent: "command", command: ["claude", "-p"], maxTurns: 50 },
      deadline: now + 3_600_000,
      parent: null,
      ancestors: [],
      hop: 0,
      labels: { bench: "list" },
      title: prompt.trim(),
      promptBytes: Buffer.byteLength(prompt),
    };
    writeFileSync(join(dir, "spec.json"), JSON.stringify(spec) + "\n", { mode: 0o600 });
    writeFileSync(join(dir, "prompt.md"), prompt, { mode: 0o600 });
    const kind = mix[i % mix.length] ?? "created";
    if (kind !== "created") {
      const holder = { pid: 1, host: "bench", startedAt: now, attempt: 1, purpose: "run" };
      writeFileSync(join(dir, "attach.lock"), JSON.stringify(holder) + "\n", { mode: 0o600 });
      writeFileSync(
        join(dir, "events.jsonl"),
        `{"seq":1,"at":${now},"type":"attached","attempt":1,"pid":1,"host":"bench"}\n`,
        { mode: 0o600 },
      );
    }
    if (kind === "finished") {
      const terminal: TerminalRecord = {
        state: "succeeded",
        at: now,
        summary: "Fixed the race in the test's setup.",
        summaryCut: false,
        lastSeq: 1,
        attempts: 1,
      };
      writeFileSync(join(dir, "terminal.json"), JSON.stringify(terminal) + "\n", { mode: 0o600 });
    }
    made.push(id);
  }
  return made;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? 0;
}

/** Runs `fn` `runs` times and returns the median of its wall times, in ms. */
export async function medianTime(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

export const quick = process.argv.includes("--quick");

export function fmt(ms: number): string {
  return ms >= 100
    ? `${ms.toFixed(0)} ms`
    : ms >= 1
      ? `${ms.toFixed(2)} ms`
      : `${(ms * 1000).toFixed(0)} µs`;
}
