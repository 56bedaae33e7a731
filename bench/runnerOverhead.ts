// What the runner costs on top of the git work it cannot avoid: the whole runner with a no-op
// agent (`true`) against a plain `git clone` of the same bundle, on a repository of 10,000
// files (1,000 with --quick). Prints medians of 5 runs and their ratio; node's own start time
// is measured too, since the runner pays it once per task. The work happens in /dev/shm when
// there is one, so that the figures are the runner's and git's, not a busy disk's.
//
//   npm run build && node --import tsx bench/runnerOverhead.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUEST_MAIN, TEST_GIT_ENV, git } from "../test/support/share.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const FILES = quick ? 1_000 : 10_000;
const RUNS = 5;
const FILES_PER_DIR = 100;

/** Memory-backed when possible: the disk is shared, and its noise would swamp the runner's. */
function benchDir(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}

function timed(program: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, args, { env, stdio: ["ignore", "ignore", "pipe"] });
    const stderr: Buffer[] = [];
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code === 0) resolve(ms);
      else reject(new Error(`${program} exited ${code}: ${Buffer.concat(stderr).toString()}`));
    });
  });
}

async function makeShare(root: string): Promise<string> {
  const repo = join(root, "repo");
  await mkdir(repo);
  await git(repo, "init", "--quiet", "--initial-branch=main");
  for (let i = 0; i < FILES; i++) {
    const dir = join(repo, `dir-${Math.floor(i / FILES_PER_DIR)}`);
    if (i % FILES_PER_DIR === 0) await mkdir(dir);
    await writeFile(join(dir, `file-${i}.txt`), `file ${i}\n${"some content\n".repeat(8)}`);
  }
  await git(repo, "add", "--all");
  await git(repo, "commit", "--quiet", "-m", "many files");
  const share = join(root, "share");
  await mkdir(share);
  await git(repo, "bundle", "create", "--quiet", join(share, "input.bundle"), "HEAD", "main");
  await writeFile(
    join(share, "task.json"),
    JSON.stringify({ agent: "command", command: ["true"] }),
  );
  await writeFile(join(share, "prompt.md"), "Nothing to do.\n");
  return share;
}

async function main(): Promise<void> {
  if (!existsSync(GUEST_MAIN)) throw new Error("run `npm run build` first");
  const root = await mkdtemp(join(benchDir(), "warden-bench-"));
  try {
    process.stdout.write(`runner overhead: ${FILES} files, median of ${RUNS} runs, in ${root}\n`);
    const share = await makeShare(root);
    const clone: number[] = [];
    const runner: number[] = [];
    const node: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Interleaved, so that a busy moment of the machine hits both alike.
      const target = join(root, `clone-${run}`);
      clone.push(
        await timed("git", ["clone", "--quiet", join(share, "input.bundle"), target], TEST_GIT_ENV),
      );
      const workspace = join(root, `workspace-${run}`);
      const scratch = join(root, `scratch-${run}`);
      runner.push(
        await timed(
          process.execPath,
          [GUEST_MAIN, "--share", share, "--workspace", workspace, "--scratch", scratch],
          process.env,
        ),
      );
      node.push(await timed(process.execPath, ["-e", ""], process.env));
      await Promise.all([target, workspace, scratch].map((d) => rm(d, { recursive: true })));
    }
    const [c, r, n] = [median(clone), median(runner), median(node)];
    const row = (name: string, ms: number): string =>
      `  ${name.padEnd(28)} ${ms.toFixed(0).padStart(6)} ms\n`;
    process.stdout.write(row("git clone of the bundle", c));
    process.stdout.write(row("warden-guest, no-op agent", r));
    process.stdout.write(row("node -e '' (start alone)", n));
    process.stdout.write(`  ratio runner / clone: ${(r / c).toFixed(2)}\n`);
    process.stdout.write(`  ratio (runner - node start) / clone: ${((r - n) / c).toFixed(2)}\n`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
