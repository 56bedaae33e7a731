// History-size independence: a no-op task (the whole `warden run` process, --sandbox bwrap) on a
// synthetic repository of 50,000 commits and over 300 MB of packed history, against
// `git worktree add` of the same commit. The first task on the repository fills warden's
// history cache; later tasks borrow it. Also shown, as what every task cost before the cache:
// `git bundle create` of the whole history + `git clone` of it. Median of several runs.
// The same no-op task on the 200-file repository of bench/taskOverhead.ts, run interleaved with
// the later tasks, shows what history costs a task: the difference between the two rows. The
// synthetic checkout is small (2,000 files, 13 MB), so `git worktree add` is quick and the ratio
// to it is mostly the fixed cost of any task (bench/taskTrace.ts), not the history's.
// The repository is built once with `git fast-import` and kept under
// $XDG_CACHE_HOME/warden-bench (else ~/.cache/warden-bench), outside the repository tree.
// Run: node --import tsx bench/largeRepo.ts [--quick]   (needs `npm run build` first)
import "./support/withoutExtraCaCerts.js";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { makeSmallRepo } from "./support/smallRepo.js";
import { median } from "./support/median.js";
import { quick } from "./support/storeSetup.js";

const RUNS = quick ? 3 : 7;
/** The history's shape: enough commits and incompressible bytes to pass both floors. */
const COMMITS = 50_000;
const BLOB_BYTES = 6_500;
/** 40 directories of 50 files: every commit rewrites one file, so trees stay small. */
const DIRS = 40;
const FILES_PER_DIR = 50;

const CLI = fileURLToPath(new URL("../dist/cli/warden.cjs", import.meta.url));
const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-C", cwd, ...args], { env: GIT_ENV, maxBuffer: 64 << 20 })
    .toString()
    .trim();
}

function cacheRoot(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return join(
    xdg !== undefined && xdg.startsWith("/") ? xdg : join(homedir(), ".cache"),
    "warden-bench",
  );
}

/** Feeds `git fast-import` a history of COMMITS commits, each a new random file version. */
async function buildRepository(repo: string): Promise<void> {
  await rm(repo, { recursive: true, force: true });
  await mkdir(repo, { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  const child = spawn("git", ["-C", repo, "fast-import", "--quiet"], {
    env: GIT_ENV,
    stdio: ["pipe", "inherit", "inherit"],
  });
  const done = new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`git fast-import exited ${String(code)}`));
    });
  });
  const write = async (chunk: string | Buffer): Promise<void> => {
    if (!child.stdin.write(chunk))
      await new Promise((resolve) => child.stdin.once("drain", resolve));
  };
  for (let i = 0; i < COMMITS; i++) {
    const file = i % (DIRS * FILES_PER_DIR);
    const path = `d${Math.floor(file / FILES_PER_DIR)}/f${file % FILES_PER_DIR}.bin`;
    const message = `commit ${i}\n`;
    const blob = randomBytes(BLOB_BYTES);
    await write(
      `commit refs/heads/main\ncommitter b <b@b> ${1_600_000_000 + i} +0000\n` +
        `data ${Buffer.byteLength(message)}\n${message}` +
        `M 100644 inline ${path}\ndata ${blob.length}\n`,
    );
    await write(blob);
    await write("\n");
  }
  child.stdin.end();
  await done;
  git(repo, "reset", "-q", "--hard", "main");
  await writeFile(join(repo, ".git", "bench-complete"), "");
}

async function largeRepository(): Promise<string> {
  const repo = join(cacheRoot(), `large-repo-${COMMITS}`);
  if (!existsSync(join(repo, ".git", "bench-complete"))) {
    console.log(`building the synthetic repository in ${repo} (once)...`);
    const started = performance.now();
    await buildRepository(repo);
    console.log(`  built in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  return repo;
}

function timed(fn: () => void): number {
  const started = performance.now();
  fn();
  return performance.now() - started;
}

function wardenRun(dataDir: string, repo: string): number {
  return timed(() => {
    execFileSync(
      process.execPath,
      [
        CLI,
        "--data-dir",
        dataDir,
        "run",
        "--repo",
        repo,
        "--prompt",
        "nothing",
        "--sandbox",
        "bwrap",
        "--",
        "true",
      ],
      { stdio: "ignore", env: { ...process.env, WARDEN_DATA_DIR: "" } },
    );
  });
}

const repo = await largeRepository();
const root = await mkdtemp(join(tmpdir(), "warden-bench-large-"));
try {
  const commits = Number(git(repo, "rev-list", "--count", "HEAD"));
  const packBytes =
    Number(/size-pack: (\d+)/.exec(git(repo, "count-objects", "-v"))?.[1] ?? "0") * 1024;
  const head = git(repo, "rev-parse", "HEAD");

  const worktree = (n: number): number => {
    const dir = join(root, `worktree-${n}`);
    const took = timed(() =>
      git(repo, "-c", "advice.detachedHead=false", "worktree", "add", "-q", "--detach", dir, head),
    );
    git(repo, "worktree", "remove", "--force", dir);
    return took;
  };
  const bundleClone = (n: number): number => {
    const bundle = join(root, `history-${n}.bundle`);
    const took = timed(() => {
      git(repo, "bundle", "create", "-q", bundle, "HEAD");
      execFileSync(
        "git",
        ["-c", "advice.detachedHead=false", "clone", "-q", bundle, join(root, `clone-${n}`)],
        {
          env: GIT_ENV,
        },
      );
    });
    execFileSync("rm", ["-rf", bundle, join(root, `clone-${n}`)]);
    return took;
  };

  // Every warden run comes right after a baseline run, so both meet the same state of the
  // machine: on a virtual disk `git worktree add` of the same commit took from 0.1 s to 2.1 s
  // within minutes, and baselines measured apart from the runs made ratios of either.
  const small = await makeSmallRepo(join(root, "small"));
  const baselines: number[] = [];
  const firsts: number[] = [];
  const laters: number[] = [];
  const smalls: number[] = [];
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    const dataDir = join(root, `data-${i}`);
    baselines.push(worktree(baselines.length));
    firsts.push(wardenRun(dataDir, repo));
    if (i === 0) {
      wardenRun(dataDir, small);
      for (let j = 0; j < RUNS; j++) {
        baselines.push(worktree(baselines.length));
        laters.push(wardenRun(dataDir, repo));
        smalls.push(wardenRun(dataDir, small));
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  }
  const base = median(baselines);
  const old = median([bundleClone(0), ...(quick ? [] : [bundleClone(1), bundleClone(2)])]);

  console.log(
    `a no-op task on ${commits} commits, ${(packBytes / 2 ** 20).toFixed(0)} MiB packed, median of ${RUNS} (first task: of ${firsts.length}; baseline: of ${baselines.length}, taken between them):`,
  );
  const row = (name: string, ms: number): void => {
    console.log(
      `  ${name.padEnd(58)} ${ms.toFixed(0).padStart(7)} ms   ratio ${(ms / base).toFixed(2)}x`,
    );
  };
  row("git worktree add of the same commit (baseline)", base);
  row("warden run --sandbox bwrap, first task (fills the cache)", median(firsts));
  row("warden run --sandbox bwrap, later tasks", median(laters));
  row("warden run --sandbox bwrap on a 200-file repository", median(smalls));
  row("git bundle create + git clone of the history (the old way)", old);
} finally {
  await rm(root, { recursive: true, force: true });
}
