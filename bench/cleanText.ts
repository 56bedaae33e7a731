// cleanText against Buffer#toString("utf8") on the same bytes: how much cleaning costs over
// plain decoding. Run: node --import tsx bench/cleanText.ts [--quick]
import { performance } from "node:perf_hooks";
import { cleanText } from "../src/protocol/index.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const MiB = 1024 * 1024;
const SIZE = (quick ? 16 : 64) * MiB;
const RUNS = 5;

/** A deterministic generator, so every run cleans the same text. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Log-like text: mostly printable ASCII lines, some multibyte words, a few escape sequences,
 * tabs and CRLFs; with `invalid`, some runs of bytes that are not UTF-8.
 */
function makeText(size: number, invalid: boolean): Buffer {
  const next = random(invalid ? 2 : 1);
  const words = [
    "error",
    "build",
    "ok",
    "test",
    "src/protocol/clean.ts:42",
    '{"type":"x"}',
    "->",
    "42",
  ];
  const multibyte = ["héllo", "日本語", "🎉", "naïve", "Ωmega"];
  const controls = ["\x1b[31m", "\x1b[0m", "\t", "\r\n", "\u202E", "\x07"];
  const bad = [
    Buffer.from([0xff]),
    Buffer.from([0xc0, 0x80]),
    Buffer.from([0xed, 0xa0, 0x80, 0xfe]),
  ];
  const parts: Buffer[] = [];
  let length = 0;
  while (length < size) {
    let line = "";
    while (line.length < 80) {
      const r = next();
      if (r < 0.9) line += (words[Math.floor(next() * words.length)] ?? "") + " ";
      else if (r < 0.97) line += (multibyte[Math.floor(next() * multibyte.length)] ?? "") + " ";
      else line += controls[Math.floor(next() * controls.length)] ?? "";
    }
    const bytes = Buffer.from(line + "\n");
    parts.push(bytes);
    length += bytes.length;
    if (invalid && next() < 0.1) {
      const b = bad[Math.floor(next() * bad.length)] ?? Buffer.alloc(0);
      parts.push(b);
      length += b.length;
    }
  }
  return Buffer.concat(parts).subarray(0, size);
}

/** Median seconds of RUNS runs of `fn`, after one warm-up run. */
function time(fn: () => unknown): number {
  fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    fn();
    runs.push((performance.now() - start) / 1000);
  }
  return median(runs);
}

function report(name: string, bytes: Buffer): void {
  const base = time(() => bytes.toString("utf8"));
  const clean = time(() => cleanText(bytes));
  const text = bytes.toString("utf8");
  const cleanString = time(() => cleanText(text));
  const mb = bytes.length / 1e6;
  console.log(`${name} (${(bytes.length / MiB).toFixed(0)} MiB):`);
  console.log(`  Buffer#toString("utf8")   ${(mb / base).toFixed(0).padStart(6)} MB/s`);
  console.log(
    `  cleanText(bytes)          ${(mb / clean).toFixed(0).padStart(6)} MB/s  ratio ${(clean / base).toFixed(2)}x the time`,
  );
  console.log(
    `  cleanText(string)         ${(mb / cleanString).toFixed(0).padStart(6)} MB/s  (decoding excluded)`,
  );
}

report("mixed text", makeText(SIZE, false));
report("mixed text with invalid bytes", makeText(SIZE, true));
