// receiveResults on a results archive as big as the contract allows (a 1 GiB changes.bundle and
// result.json), piped from a file, against `cat` of the same file to /dev/null, and `cp` of it
// with and without `sync` (reading the same bytes and writing them to disk, as receiving must).
// Run: node --import tsx bench/receiveResults.ts [--quick]   (--quick: 128 MiB)
import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pack as tarPack } from "tar-stream";
import { LIMITS, formatResult, receiveResults } from "../src/protocol/index.js";
import { median } from "./support/median.js";
import { pairedMedians } from "./support/pairedRuns.js";

const quick = process.argv.includes("--quick");
const MiB = 1024 * 1024;
const ENTRY_BYTES = quick ? 128 * MiB : LIMITS.changesBytes;
const RUNS = 5;

/** Random-ish bytes: a xorshift stream, so the file does not compress or dedupe to nothing. */
function fill(buffer: Buffer, seed: number): number {
  let x = seed >>> 0 || 1;
  for (let i = 0; i + 4 <= buffer.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buffer.writeUInt32LE(x >>> 0, i);
  }
  return x;
}

/** Writes the archive with tar-stream, as the guest would, streaming the entry body. */
async function makeArchive(path: string): Promise<number> {
  const file = await open(path, "w");
  const pack = tarPack();
  const writing = (async () => {
    for await (const chunk of pack) await file.write(chunk as Buffer);
  })();
  const entry = pack.entry({
    name: "changes.bundle",
    size: ENTRY_BYTES,
    mode: 0o600,
    type: "file",
  });
  const chunk = Buffer.alloc(4 * MiB);
  let seed = 42;
  for (let written = 0; written < ENTRY_BYTES; written += chunk.length) {
    seed = fill(chunk, seed);
    const piece = Buffer.from(chunk.subarray(0, Math.min(chunk.length, ENTRY_BYTES - written)));
    if (!entry.write(piece)) {
      await new Promise<void>((resolve) => {
        entry.once("drain", () => {
          resolve();
        });
      });
    }
  }
  entry.end(null);
  const result = formatResult({
    agent: "command",
    timedOut: false,
    leftovers: false,
    truncated: [],
    warnings: [],
  });
  pack.entry({ name: "result.json", mode: 0o600 }, result);
  pack.finalize();
  await writing;
  const { size } = await file.stat();
  await file.close();
  return size;
}

async function run(command: string, args: string[], stdout: "ignore" | number): Promise<void> {
  const child = spawn(command, args, { stdio: ["ignore", stdout, "inherit"] });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  if (code !== 0) throw new Error(`${command} exited with ${code}`);
}

/** Median seconds of `count` runs (RUNS unless told); `prepare` runs before each, untimed. */
async function time(
  fn: (i: number) => Promise<void>,
  prepare: (i: number) => Promise<void> = () => Promise.resolve(),
  count = RUNS,
): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < count; i++) {
    await prepare(i);
    const start = performance.now();
    await fn(i);
    runs.push((performance.now() - start) / 1000);
  }
  return median(runs);
}

const root = await mkdtemp(join(tmpdir(), "warden-bench-receive-"));
try {
  const archive = join(root, "results.tar");
  console.log(`writing a ${(ENTRY_BYTES / MiB).toFixed(0)} MiB archive...`);
  const size = await makeArchive(archive);
  const devNull = await open("/dev/null", "w");
  // One untimed read so every contender starts with the file in the page cache.
  await run("cat", [archive], devNull.fd);

  const cat = await time(() => run("cat", [archive], devNull.fd));
  const out = (i: number): string => join(root, `out-${i}`);
  const clear = async (i: number): Promise<void> => {
    await rm(out(i), { recursive: true, force: true });
    await mkdir(out(i));
  };
  const fresh = async (i: number): Promise<void> => {
    await clear(i);
    if (i > 0) await rm(out(i - 1), { recursive: true, force: true });
    // The removal's own disk work (discards, the journal) is done here, untimed, rather than
    // inside the next run's sync.
    await run("sync", ["-f", root], "ignore");
  };
  const cp = await time((i) => run("cp", [archive, join(out(i), "copy")], "ignore"), fresh);
  // receiveResults syncs what it writes, so the fair disk baseline syncs too.
  const cpSync = await time(async (i) => {
    await run("cp", [archive, join(out(i), "copy")], "ignore");
    await run("sync", [join(out(i), "copy")], "ignore");
  }, fresh);
  // The floor for any Node.js receiver: the same stream copied to a file with no checks at all.
  const copyBare = async (i: number): Promise<void> => {
    const file = await open(join(out(i), "copy"), "wx", 0o600);
    let batch: Buffer[] = [];
    let batched = 0;
    for await (const chunk of createReadStream(archive)) {
      batch.push(chunk as Buffer);
      batched += (chunk as Buffer).length;
      if (batched >= MiB) {
        await file.writev(batch);
        batch = [];
        batched = 0;
      }
    }
    await file.writev(batch);
    await file.datasync();
    await file.close();
  };
  const receiveOne = async (i: number): Promise<void> => {
    await receiveResults(createReadStream(archive), { dir: out(i) });
  };
  // The bare copy and receiveResults run in pairs, one right after the other (which goes first
  // alternates), so both of a pair see the same load from whatever else uses the disk.
  const paired = await pairedMedians(
    RUNS,
    () => time(copyBare, fresh, 1),
    () => time(receiveOne, fresh, 1),
  );
  const nodeCopy = paired.base;
  const receive = paired.warden;
  await devNull.close();

  const mbps = (seconds: number): string => `${(size / 1e6 / seconds).toFixed(0).padStart(6)} MB/s`;
  console.log(`archive: ${(size / MiB).toFixed(1)} MiB, median of ${RUNS} runs`);
  console.log(`  cat > /dev/null       ${mbps(cat)}`);
  console.log(`  cp (to disk)          ${mbps(cp)}`);
  console.log(`  cp + sync             ${mbps(cpSync)}`);
  console.log(`  bare Node.js copy     ${mbps(nodeCopy)}  (stream to file + datasync, no checks)`);
  console.log(`  receiveResults        ${mbps(receive)}`);
  const ratio = (baseline: number): string => (receive / baseline).toFixed(2);
  console.log(
    `receiveResults takes ${ratio(cat)}x the time of cat, ${ratio(cp)}x that of cp, ` +
      `${ratio(cpSync)}x that of cp + sync, ${ratio(nodeCopy)}x that of a bare Node.js copy`,
  );
  console.log(
    `throughput against the bare Node.js copy, median of ${RUNS} pairs: ` +
      // RUNS is odd, so the inverse of the median of the time ratios is the median throughput ratio.
      `${(1 / paired.ratio).toFixed(2)}x`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
