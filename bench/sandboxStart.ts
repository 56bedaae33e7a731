// Sandbox start: from start() to the first byte the runner writes on stdout (to the exit, for
// `true`, which writes nothing), bwrap and none against a plain spawn of the same command.
// Run: node --import tsx bench/sandboxStart.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { sandboxBackend, type SandboxBackend, type SandboxRequest } from "../src/sandbox/index.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 5 : 21;
const MiB = 1024 * 1024;

interface Program {
  name: string;
  program: string;
  args: string[];
  /** Time to the first stdout byte, or to the exit when the program writes nothing. */
  until: "first-byte" | "exit";
}

const PROGRAMS: Program[] = [
  {
    name: "node -e (tiny program)",
    program: process.execPath,
    args: ["-e", "process.stdout.write('x')", "--"],
    until: "first-byte",
  },
  { name: "true", program: "/bin/true", args: [], until: "exit" },
];

/** Settles when `stream` gives its first byte (or ends without one). */
function firstByte(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once("data", () => {
      resolve();
    });
    stream.once("end", resolve);
  });
}

async function plainSpawn(p: Program): Promise<number> {
  const started = performance.now();
  const child = spawn(p.program, p.args, { stdio: ["ignore", "pipe", "ignore"], env: {} });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => {
      resolve();
    });
  });
  if (p.until === "first-byte") await firstByte(child.stdout);
  else await exited;
  const took = performance.now() - started;
  child.stdout.resume();
  await exited;
  return took;
}

let counter = 0;

async function sandboxed(
  backend: SandboxBackend,
  dir: string,
  p: Program,
  limits: SandboxRequest["limits"],
): Promise<number> {
  counter += 1;
  const request: SandboxRequest = {
    taskId: `bench-${counter}`,
    share: join(dir, "share"),
    workspace: join(dir, "workspace"),
    sockets: [],
    runner: { program: p.program, args: p.args },
    readOnlyBinds: [],
    env: {},
    limits,
  };
  const started = performance.now();
  const sandbox = await backend.start(request);
  sandbox.stderr.resume();
  if (p.until === "first-byte") await firstByte(sandbox.stdout);
  else await sandbox.exit;
  const took = performance.now() - started;
  sandbox.stdout.resume();
  await sandbox.exit;
  return took;
}

async function measure(fn: () => Promise<number>): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await fn());
  return median(runs);
}

const dir = await mkdtemp(join(tmpdir(), "warden-bench-"));
await mkdir(join(dir, "share"));
await mkdir(join(dir, "workspace"));
try {
  const bwrap = sandboxBackend("bwrap");
  const none = sandboxBackend("none");
  const check = await bwrap.check();
  console.log(
    `median of ${RUNS} runs each; bwrap: ${check.ok ? check.detail : `unavailable (${check.why})`}`,
  );
  for (const p of PROGRAMS) {
    const base = await measure(() => plainSpawn(p));
    const rows: [string, number][] = [["plain spawn (baseline)", base]];
    rows.push(["sandbox none", await measure(() => sandboxed(none, dir, p, {}))]);
    if (check.ok) {
      rows.push(["sandbox bwrap", await measure(() => sandboxed(bwrap, dir, p, {}))]);
      rows.push([
        "sandbox bwrap + cgroup limits",
        await measure(() => sandboxed(bwrap, dir, p, { memoryBytes: 512 * MiB, processes: 256 })),
      ]);
    }
    console.log(`${p.name}, to the ${p.until === "exit" ? "exit" : "first stdout byte"}:`);
    for (const [name, ms] of rows) {
      console.log(
        `  ${name.padEnd(30)} ${ms.toFixed(1).padStart(7)} ms   ratio ${(ms / base).toFixed(2)}x`,
      );
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
