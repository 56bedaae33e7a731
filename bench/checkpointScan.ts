// What the first checkpoint of a large workspace costs: a 20,000-file repository just checked
// out, one file changed, checkpointed by the runner's own code (src/guest/checkpointGit.ts) into
// a fresh checkpoints repository, against `git status` of the same workspace, the scan any tool
// that looks for changes pays. Median of several runs, each with a fresh checkpoints repository.
// Run: node --import tsx bench/checkpointScan.ts [--quick]
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { checkpointWorkspace } from "../src/guest/checkpointGit.js";
import { gitEnvironment } from "../src/guest/gitSteps.js";
import { median } from "./support/median.js";
import { runQuietly } from "./support/smallRepo.js";
import { execFileSync } from "node:child_process";

const FILES = 20_000;
const RUNS = process.argv.includes("--quick") ? 3 : 7;

const root = await mkdtemp(join(tmpdir(), "warden-bench-checkpoint-scan-"));
try {
  const workspace = join(root, "workspace");
  runQuietly("git", ["init", "-q", "-b", "main", workspace]);
  for (let i = 0; i < FILES; i++) {
    if (i % 100 === 0) runQuietly("mkdir", ["-p", join(workspace, `d${i / 100}`)]);
    await writeFile(join(workspace, `d${Math.floor(i / 100)}`, `f${i}.txt`), `file ${i}\n`);
  }
  runQuietly("git", ["add", "."], workspace);
  runQuietly(
    "git",
    ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"],
    workspace,
  );
  const base = execFileSync("git", ["-C", workspace, "rev-parse", "HEAD"]).toString().trim();
  await writeFile(join(workspace, "d0", "f0.txt"), "changed\n");
  const env = gitEnvironment(process.env.PATH ?? "/usr/bin:/bin", root);

  const status: number[] = [];
  const checkpoint: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let started = performance.now();
    runQuietly("git", ["status", "--porcelain"], workspace);
    status.push(performance.now() - started);
    const repo = join(root, `checkpoints-${i}.git`);
    started = performance.now();
    await checkpointWorkspace(
      { workspace, repo, base, identity: { name: "b", email: "b@b" } },
      { env, signal: new AbortController().signal },
      join(root, `checkpoint-${i}.bundle`),
    );
    checkpoint.push(performance.now() - started);
    await rm(repo, { recursive: true, force: true });
  }
  const s = median(status);
  const c = median(checkpoint);
  console.log(`the first checkpoint of a ${FILES}-file workspace, median of ${RUNS}:`);
  console.log(`  git status (baseline)        ${s.toFixed(0).padStart(6)} ms  1.00x`);
  console.log(
    `  first checkpoint             ${c.toFixed(0).padStart(6)} ms  ${(c / s).toFixed(2)}x`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
