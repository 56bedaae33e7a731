// The cost of a second repository: a whole `warden run` of a no-op command on one repository
// against the same run with a second repository bound (--workspace), in the real bwrap sandbox,
// both with their history caches warm. The two kinds alternate, so a slow spell of the machine
// falls on both. Median of several runs.
// Run: npm run build && node --import tsx bench/workspaces.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 9;
const CLI = fileURLToPath(new URL("../dist/cli/warden.cjs", import.meta.url));

const root = await mkdtemp(join(tmpdir(), "warden-bench-workspaces-"));

/** A repository of a few files and commits. */
async function repository(name: string): Promise<string> {
  const repo = join(root, name);
  await mkdir(repo);
  const git = (...args: string[]): void => {
    execFileSync("git", ["-C", repo, ...args], {
      env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    });
  };
  git("init", "-q", "-b", "main");
  for (let i = 0; i < 5; i++) {
    execFileSync("sh", ["-c", `seq 1 2000 > ${join(repo, `file-${i}.txt`)}`]);
    git("add", "--all");
    git("-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", `commit ${i}`);
  }
  return repo;
}

/** One `warden run` to its end, in ms; a failed run stops the benchmark. */
function run(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, "--data-dir", join(root, "data"), "run", ...args, "--prompt", "x", "--", "true"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
  return new Promise((resolve, reject) => {
    child.once("close", (code) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`warden run exited ${String(code)}: ${err}`));
    });
  });
}

try {
  const app = await repository("app");
  const lib = await repository("lib");
  const one = ["--repo", app];
  const two = ["--repo", app, "--workspace", `lib=${lib}`];
  // Warm: each repository's history cache is filled once, as on any machine after its first task.
  await run(one);
  await run(two);
  const ones: number[] = [];
  const twos: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    ones.push(await run(one));
    twos.push(await run(two));
  }
  const a = median(ones);
  const b = median(twos);
  console.log(`warden run of a no-op command, bwrap, caches warm, median of ${RUNS}:`);
  console.log(`  one repository (baseline)      ${a.toFixed(0).padStart(6)} ms`);
  console.log(
    `  with a second one bound        ${b.toFixed(0).padStart(6)} ms   ratio ${(b / a).toFixed(2)}x (+${(b - a).toFixed(0)} ms)`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
