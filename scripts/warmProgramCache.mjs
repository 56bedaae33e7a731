// Writes the V8 code caches of warden's program (src/cli/command.ts chooses between them). V8
// compiles a function when it is first called, and a cache holds what was compiled when it was
// written: written at the end of `run --help` it held the code of the start alone, and every
// `warden run` compiled the rest (the store, the host, the sandbox, the network gate) again,
// about 70 ms of each. So the build runs a task that does nothing (`true`) on a repository of one
// commit that it makes for the purpose, in a data directory, a home and a config of its own, and
// program-task.codecache is written as that process exits; then `ls` over that data directory
// writes program.codecache, for every other verb: a cache of the whole task's code took
// `--version` about 8 ms more to read. The runner's cache (dist/guest/runner.codecache, written
// at the end of `warden-guest --help` by scripts/bundleGuest.mjs) is written again at the end
// of a first task run without a sandbox, the one place the host lets a runner write beside its
// bundle (src/host/executeTask.ts); about 15-30 ms of each task. The task whose run writes the
// program's cache runs in bwrap where bwrap runs, with its memory and process bounds where this
// user can write a cgroup; where bwrap cannot run (a machine without it), without a sandbox.
// Nothing runs in these tasks but `true`, in a folder the build made. Where no task can run at
// all, the task's cache is written at the end of `run --help`, as a cache of the start alone.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** A bwrap sandbox without the bounds that need a writable cgroup. */
const NO_BOUNDS = ["--sandbox", "bwrap", "--memory", "0", "--max-processes", "0"];

/** The environment of every process the warm-up starts: nothing of the user's config. */
function warmEnv(dir) {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "config"),
    XDG_DATA_HOME: join(dir, "data"),
    WARDEN_DATA_DIR: join(dir, "data", "warden"),
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "warden build",
    GIT_AUTHOR_EMAIL: "build@warden.invalid",
    GIT_COMMITTER_NAME: "warden build",
    GIT_COMMITTER_EMAIL: "build@warden.invalid",
  };
}

/** Runs `program args` quietly; true when it ended with status 0. */
function ranWell(program, args, options) {
  try {
    execFileSync(program, args, { ...options, stdio: "ignore", timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the caches `taskCache` and `cache` for the program that `command` (dist/cli/warden.cjs)
 * runs, and says by what run the task's was written: "a task in bwrap" (with or without its
 * bounds), "a task without a sandbox" or "run --help".
 */
export async function warmProgramCache(command, taskCache, cache) {
  const dir = await mkdtemp(join(tmpdir(), "warden-build-"));
  try {
    const env = warmEnv(dir);
    const repo = join(dir, "repo");
    await mkdir(repo);
    await mkdir(env.HOME);
    await writeFile(join(repo, "README.md"), "A repository for warming warden's code cache.\n");
    const git = (args) => ranWell("git", args, { cwd: repo, env });
    const made = git(["init", "-q"]) && git(["add", "."]) && git(["commit", "-q", "-m", "one"]);
    const writing = { ...env, WARDEN_WRITE_CODE_CACHE: "1" };
    const run = (how) =>
      ranWell(
        process.execPath,
        [command, "run", "-q", ...how, "--agent", "command", "--prompt", "warm", "--", "true"],
        { cwd: repo, env: writing },
      );
    // First the runner's cache; the program's written at the end of this run is then replaced.
    if (made) run(["--sandbox", "none"]);
    // A cache from an attempt that failed holds less: each attempt starts from none.
    let by = "run --help";
    // The memory and process bounds need a cgroup this user can write (root's, as a rule).
    for (const [how, what] of [
      [["--sandbox", "bwrap"], "a task in bwrap"],
      [NO_BOUNDS, "a task in bwrap without its memory and process bounds"],
      [["--sandbox", "none"], "a task without a sandbox"],
    ]) {
      await rm(taskCache, { force: true });
      if (made && run(how)) {
        by = what;
        break;
      }
    }
    if (by === "run --help") {
      await rm(taskCache, { force: true });
      ranWell(process.execPath, [command, "run", "--help"], { env: writing });
    }
    await rm(cache, { force: true });
    ranWell(process.execPath, [command, "ls"], { env: writing });
    return by;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
