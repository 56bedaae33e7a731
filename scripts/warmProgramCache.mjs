// Writes the V8 code caches of warden's program (src/cli/command.ts chooses between them). V8
// compiles a function when it is first called, and a cache holds what was compiled when it was
// written: written at the end of `run --help` it held the code of the start alone, and every
// `warden run` compiled the rest (the store, the host, the sandbox, the network gate) again,
// about 70 ms of each. So the build runs a task that does nothing (`true`) on a repository of one
// commit that it makes for the purpose, in a data directory, a home and a config of its own, and
// program-task.codecache is written as that process exits; then `logs` of that task writes
// program.codecache, for the program's other verbs (a cache of the whole task's code took a
// start about 8 ms more to read), and one process that runs `ls`, `show` of that task and `send`
// to a task it creates (scripts/runInOneProcess.mjs) writes quick.codecache. A `command` agent
// takes no messages, so that `send` is refused once it has read the task: the cache holds the
// code of its reading and its checks, and the store's write compiles as a `send` first runs it.
// The runner's cache (dist/guest/runner.codecache, written
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
import { dirname, join } from "node:path";
import { URL, fileURLToPath } from "node:url";
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
  return outputOf(program, args, options) !== undefined;
}

/** What `program args` wrote on stdout, or undefined when it did not end with status 0. */
function outputOf(program, args, options) {
  try {
    return execFileSync(program, args, {
      ...options,
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 60_000,
      encoding: "utf8",
    });
  } catch {
    return undefined;
  }
}

const RUN_IN_ONE_PROCESS = fileURLToPath(new URL("./runInOneProcess.mjs", import.meta.url));

/**
 * Writes the caches `caches.task`, `caches.whole` and `caches.quick` of the programs that
 * `command` (dist/cli/warden.cjs) runs, and says by what run the task's was written: "a task in
 * bwrap" (with or without its bounds), "a task without a sandbox" or "run --help".
 */
export async function warmProgramCache(command, caches) {
  const { task: taskCache, whole: cache, quick: quickCache } = caches;
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
    // The task the run made, if one could run, and one made for `send`.
    const [ran] = (outputOf(process.execPath, [command, "ls", "-q"], { env }) ?? "").split("\n");
    const created = made
      ? outputOf(
          process.execPath,
          [command, "create", "--agent", "command", "--prompt", "warm", "--", "true"],
          { cwd: repo, env },
        )?.trim()
      : undefined;
    await rm(cache, { force: true });
    ranWell(process.execPath, [command, "logs", ran || "none"], { env: writing });
    await rm(quickCache, { force: true });
    const lines = [["ls"]];
    if (ran) lines.push(["show", ran]);
    if (created) lines.push(["send", created, "warm"]);
    const quick = join(dirname(command), "quick.cjs");
    ranWell(
      process.execPath,
      [RUN_IN_ONE_PROCESS, quick, quickCache, ...lines.flatMap((line) => ["--", ...line])],
      { env: writing },
    );
    return by;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
