// The small repository and the baseline that bench/taskOverhead.ts and bench/taskTrace.ts
// compare a no-op task against: 200 files in one commit, and the least a script could do to
// give an agent that repository, `git bundle create` + `git clone` + the no-op itself.
import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

/** The number of files in the small repository. */
export const SMALL_REPO_FILES = 200;

/** git with the machine's own configuration shut out, so every run sees the same git. */
export const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

/** Runs a program to its end, quietly, and throws when it fails. */
export function runQuietly(program: string, args: string[], cwd?: string): void {
  execFileSync(program, args, { env: GIT_ENV, stdio: "ignore", ...(cwd ? { cwd } : {}) });
}

/** Makes the small repository at `root`/repo and returns its path. */
export async function makeSmallRepo(root: string): Promise<string> {
  const repo = join(root, "repo");
  await mkdir(join(repo, "src"), { recursive: true });
  for (let i = 0; i < SMALL_REPO_FILES; i++) {
    const line = `export const value${i} = ${i};\n`;
    await writeFile(join(repo, "src", `file-${i}.ts`), line.repeat(20));
  }
  runQuietly("git", ["init", "-q", "-b", "main"], repo);
  runQuietly("git", ["add", "."], repo);
  runQuietly(
    "git",
    ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "small repo"],
    repo,
  );
  return repo;
}

/**
 * Returns a function that times one run of the baseline, each in a fresh directory under
 * `root`: `git bundle create` of `repo`'s HEAD, `git clone` of that bundle, and `true` inside.
 */
export function bundleCloneBaseline(root: string, repo: string): () => number {
  let counter = 0;
  return () => {
    counter++;
    const dir = join(root, `baseline-${counter}`);
    const started = performance.now();
    runQuietly("mkdir", [dir]);
    runQuietly("git", ["-C", repo, "bundle", "create", "-q", join(dir, "input.bundle"), "HEAD"]);
    runQuietly("git", ["clone", "-q", join(dir, "input.bundle"), join(dir, "clone")]);
    runQuietly("true", [], join(dir, "clone"));
    return performance.now() - started;
  };
}
