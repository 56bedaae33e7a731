// How the built `warden` loads its program (src/cli/command.ts): `ls`, `show`, `send` and
// --version load the quick program (dist/cli/quick.cjs) with a cache written after those three
// ran; every other command line loads the whole program as one CommonJS bundle
// (dist/cli/program.cjs) with a V8 code cache, the verbs that run a task one written at the end
// of a task's run, the others one written at the end of `logs` (scripts/warmProgramCache.mjs);
// the runner loads its bundle (dist/guest/runner.cjs) with its cache the same way. Whether V8
// took a cache is read from the WARDEN_TRACE line of the load.
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import {
  loadPhaseName,
  TRACE_ENV,
  WRITE_CODE_CACHE_ENV,
  type TracedPhase,
} from "../../src/lang/index.js";
import { cleanEnv, runCli, type CliResult } from "../e2e/fixtures.js";
import { makeRepo } from "../support/share.js";
import { skipWhen } from "../support/skipWhen.js";

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "dist", "cli", "warden.cjs");
/** The program from its modules as tsc emits them, unbundled (src/cli/main.ts). */
const UNBUNDLED = join(ROOT, "dist", "cli", "main.js");
const PROGRAM = join(ROOT, "dist", "cli", "program.cjs");
const QUICK = join(ROOT, "dist", "cli", "quick.cjs");
const RUNNER = join(ROOT, "dist", "guest", "runner.cjs");
const GUEST = join(ROOT, "dist", "guest", "warden-guest.cjs");
const TASK_CACHE = join(ROOT, "dist", "cli", "program-task.codecache");
const NOT_BUILT = skipWhen(
  existsSync(CLI) && existsSync(PROGRAM) && existsSync(QUICK) && existsSync(GUEST)
    ? false
    : "warden is not built: npm run build",
);

/** Runs `program args` with a trace and hands back its output and the phases it traced. */
async function traced(
  program: string,
  args: string[],
): Promise<{ stdout: string; phases: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "warden-program-bundle-"));
  try {
    const trace = join(dir, "trace.jsonl");
    const { stdout } = await execFileAsync(process.execPath, [program, ...args], {
      env: cleanEnv({ WARDEN_DATA_DIR: join(dir, "data"), [TRACE_ENV]: trace }),
    });
    const text = existsSync(trace) ? await readFile(trace, "utf8") : "";
    const phases = text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => (JSON.parse(line) as TracedPhase).name);
    return { stdout, phases };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Copies the built command and its program, without caches or node_modules, with the package's
 * manifest, into a new folder; hands back the folder and its dist/cli.
 */
async function copyCommand(prefix: string): Promise<{ copy: string; cli: string }> {
  const copy = await mkdtemp(join(tmpdir(), prefix));
  const cli = join(copy, "dist", "cli");
  await mkdir(cli, { recursive: true });
  for (const file of ["warden.cjs", "program.cjs", "quick.cjs"]) {
    await cp(join(ROOT, "dist", "cli", file), join(cli, file));
  }
  await cp(join(ROOT, "package.json"), join(copy, "package.json"));
  return { copy, cli };
}

const loadPhases = (phases: string[]): string[] =>
  phases.filter((name) => name.startsWith("load "));

test(
  "every command line loads one of the program's bundles, and V8 takes its code cache",
  { skip: NOT_BUILT },
  async () => {
    const whole = [
      ...["run", "start", "rerun", "continue", "worker", "logs"].map((verb) => [verb, "--help"]),
      ["--help"],
      ["--data-dir", "/nonexistent/data", "run", "--help"],
    ];
    const quick = [["ls"], ["show", "--help"], ["send", "--help"], ["--version"]];
    for (const [lines, bundle] of [
      [whole, PROGRAM],
      [quick, QUICK],
    ] as const) {
      for (const args of lines) {
        const { phases } = await traced(CLI, args);
        assert.deepEqual(loadPhases(phases), [loadPhaseName(bundle, true)], args.join(" "));
      }
    }
  },
);

test(
  "the quick program reads as the whole program does, and tells a misspelt option the same way",
  { skip: NOT_BUILT },
  async () => {
    const run = (args: string[]): Promise<CliResult> =>
      runCli(join(tmpdir(), "warden-quick-none"), args);
    for (const verb of ["ls", "show", "send"]) {
      // Help of the whole program with its verb (`help ls`) against the quick program's.
      const quick = await run([verb, "--help"]);
      const whole = await run(["help", verb]);
      assert.equal(quick.stdout, whole.stdout, verb);
      assert.match(quick.stdout, new RegExp(`^Usage: warden ${verb} `), verb);
      const misspelt = await run([verb, "--bogus"]);
      assert.match(misspelt.stderr, /^warden: unknown option '--bogus'\nhint: /, verb);
    }
  },
);

test(
  "a verb that runs a task reads the task's cache, any other verb the other one",
  { skip: NOT_BUILT },
  async () => {
    const { copy, cli } = await copyCommand("warden-one-cache-");
    try {
      await cp(TASK_CACHE, join(cli, "program-task.codecache"));
      const loaded = async (args: string[]): Promise<string[]> =>
        loadPhases((await traced(join(cli, "warden.cjs"), args)).phases);
      const program = join(cli, "program.cjs");
      // Only the task's cache is there: the task verbs take it, the others compile.
      assert.deepEqual(await loaded(["run", "--help"]), [loadPhaseName(program, true)]);
      assert.deepEqual(await loaded(["logs", "--help"]), [loadPhaseName(program, false)]);
      await rm(join(cli, "program-task.codecache"));
      await cp(join(ROOT, "dist", "cli", "program.codecache"), join(cli, "program.codecache"));
      assert.deepEqual(await loaded(["start", "--help"]), [loadPhaseName(program, false)]);
      assert.deepEqual(await loaded(["logs", "--help"]), [loadPhaseName(program, true)]);
      // The quick program has a cache of its own.
      const quick = join(cli, "quick.cjs");
      assert.deepEqual(await loaded(["ls"]), [loadPhaseName(quick, false)]);
      await cp(join(ROOT, "dist", "cli", "quick.codecache"), join(cli, "quick.codecache"));
      assert.deepEqual(await loaded(["ls"]), [loadPhaseName(quick, true)]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  },
);

const NO_BWRAP = skipWhen(
  existsSync("/usr/bin/bwrap") ? false : "bubblewrap is not installed: apt-get install bubblewrap",
);

test(
  "the build writes the caches of the task verbs and of the runner at the end of tasks it runs",
  { skip: NOT_BUILT || NO_BWRAP },
  async () => {
    const copy = await mkdtemp(join(tmpdir(), "warden-warm-"));
    try {
      const cli = join(copy, "dist", "cli");
      await cp(join(ROOT, "dist"), join(copy, "dist"), { recursive: true });
      const taskCache = join(cli, "program-task.codecache");
      const cache = join(cli, "program.codecache");
      const quickCache = join(cli, "quick.codecache");
      const runnerCache = join(copy, "dist", "guest", "runner.codecache");
      for (const file of [taskCache, cache, quickCache, runnerCache]) await rm(file);
      await cp(join(ROOT, "package.json"), join(copy, "package.json"));
      await symlink(join(ROOT, "node_modules"), join(copy, "node_modules"));
      // A runner in a sandbox never writes beside its bundle, even when the host is asked to.
      const { repo } = await makeRepo(join(copy, "repo"));
      await execFileAsync(
        process.execPath,
        [join(cli, "warden.cjs"), "run", "-q", "--memory", "0", "--max-processes", "0"].concat([
          "--agent",
          "command",
          "--prompt",
          "x",
          "--",
          "true",
        ]),
        {
          cwd: repo,
          env: cleanEnv({ WARDEN_DATA_DIR: join(copy, "data"), [WRITE_CODE_CACHE_ENV]: "1" }),
        },
      );
      assert.equal(existsSync(runnerCache), false, "the runner in bwrap wrote its cache");
      const script = pathToFileURL(join(ROOT, "scripts", "warmProgramCache.mjs")).href;
      const { warmProgramCache } = (await import(script)) as {
        warmProgramCache: (
          command: string,
          caches: { task: string; whole: string; quick: string },
        ) => Promise<string>;
      };
      // Its bounds need a cgroup only root can write, as a rule.
      assert.match(
        await warmProgramCache(join(cli, "warden.cjs"), {
          task: taskCache,
          whole: cache,
          quick: quickCache,
        }),
        /^a task in bwrap( without its memory and process bounds)?$/,
      );
      // The task's cache holds the code of the whole task, the other that of `logs`.
      const [taskBytes, logsBytes] = [(await stat(taskCache)).size, (await stat(cache)).size];
      assert.ok(taskBytes > 1.5 * logsBytes, `${taskBytes} bytes against ${logsBytes}`);
      // The quick program's holds the code of ls, show and send, more than that of ls alone.
      const quickBytes = (await stat(quickCache)).size;
      // A process that took a cache writes all of it again: ls alone writes from none.
      await rm(quickCache);
      await execFileAsync(process.execPath, [join(cli, "warden.cjs"), "ls"], {
        env: cleanEnv({ WARDEN_DATA_DIR: join(copy, "data"), [WRITE_CODE_CACHE_ENV]: "1" }),
      });
      const lsBytes = (await stat(quickCache)).size;
      assert.ok(quickBytes > 1.1 * lsBytes, `${quickBytes} bytes against ${lsBytes}`);
      const { phases } = await traced(join(cli, "warden.cjs"), ["run", "--help"]);
      assert.deepEqual(loadPhases(phases), [loadPhaseName(join(cli, "program.cjs"), true)]);
      // The runner's was written by the runner of a task without a sandbox, and is taken.
      const guest = await traced(join(copy, "dist", "guest", "warden-guest.cjs"), ["--help"]);
      const runner = join(copy, "dist", "guest", "runner.cjs");
      assert.deepEqual(loadPhases(guest.phases), [loadPhaseName(runner, true)]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  },
);

test("the runner loads its bundle, and V8 takes its code cache", { skip: NOT_BUILT }, async () => {
  const { stdout, phases } = await traced(GUEST, ["--help"]);
  assert.match(stdout, /^Usage: warden-guest /);
  assert.deepEqual(loadPhases(phases), [loadPhaseName(RUNNER, true)]);
});

test(
  "the bundles are ASCII, so they load without UTF-8 decoding",
  { skip: NOT_BUILT },
  async () => {
    for (const bundle of [PROGRAM, RUNNER, GUEST]) {
      const bytes = await readFile(bundle);
      const at = bytes.findIndex((byte) => byte > 0x7f);
      const around =
        at === -1 ? "" : bytes.subarray(Math.max(0, at - 60), at + 20).toString("utf8");
      assert.equal(at, -1, `${bundle} has a byte beyond ASCII at ${at}: ${around}`);
    }
  },
);

test(
  "the program from its unbundled modules reads the same as the bundle",
  { skip: NOT_BUILT },
  async () => {
    for (const args of [["run", "--help"], ["--help"], ["ls"]]) {
      const alone = await traced(UNBUNDLED, args);
      assert.deepEqual(loadPhases(alone.phases), [], args.join(" "));
      assert.equal(alone.stdout, (await traced(CLI, args)).stdout, args.join(" "));
    }
  },
);

test(
  "the bundle carries every package but the native lock addon: a copy without node_modules runs",
  { skip: NOT_BUILT },
  async () => {
    const { copy, cli } = await copyCommand("warden-no-modules-");
    try {
      const command = join(cli, "warden.cjs");
      const bundled = await traced(command, ["run", "--help"]);
      // Without its cache beside it, the bundle is compiled as it loads.
      assert.deepEqual(loadPhases(bundled.phases), [
        loadPhaseName(join(cli, "program.cjs"), false),
      ]);
      assert.equal(bundled.stdout, (await traced(CLI, ["run", "--help"])).stdout);
      assert.equal((await traced(command, ["ls", "--json"])).stdout, "[]\n");
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  },
);
