// How the built `warden` loads its program (src/cli/command.ts): every command line loads the
// whole program as one CommonJS bundle with V8's code cache (dist/cli/program.cjs), and the
// runner loads its bundle (dist/guest/runner.cjs) with its cache the same way. Whether V8 took a
// cache is read from the WARDEN_TRACE line of the load.
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { loadPhaseName, TRACE_ENV, type TracedPhase } from "../../src/lang/index.js";
import { cleanEnv } from "../e2e/fixtures.js";
import { skipWhen } from "../support/skipWhen.js";

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "dist", "cli", "warden.cjs");
/** The program from its modules as tsc emits them, unbundled (src/cli/main.ts). */
const UNBUNDLED = join(ROOT, "dist", "cli", "main.js");
const PROGRAM = join(ROOT, "dist", "cli", "program.cjs");
const RUNNER = join(ROOT, "dist", "guest", "runner.cjs");
const GUEST = join(ROOT, "dist", "guest", "warden-guest.cjs");
const NOT_BUILT = skipWhen(
  existsSync(CLI) && existsSync(PROGRAM) && existsSync(GUEST)
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

const loadPhases = (phases: string[]): string[] =>
  phases.filter((name) => name.startsWith("load "));

test(
  "every command line loads the program's bundle, and V8 takes its code cache",
  { skip: NOT_BUILT },
  async () => {
    const lines = [
      ...["run", "start", "rerun", "continue", "worker", "show", "send"].map((verb) => [
        verb,
        "--help",
      ]),
      ["ls"],
      ["--help"],
      ["--version"],
      ["--data-dir", "/nonexistent/data", "run", "--help"],
    ];
    for (const args of lines) {
      const { phases } = await traced(CLI, args);
      assert.deepEqual(loadPhases(phases), [loadPhaseName(PROGRAM, true)], args.join(" "));
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
    const copy = await mkdtemp(join(tmpdir(), "warden-no-modules-"));
    try {
      await mkdir(join(copy, "dist", "cli"), { recursive: true });
      for (const file of ["warden.cjs", "program.cjs"]) {
        await cp(join(ROOT, "dist", "cli", file), join(copy, "dist", "cli", file));
      }
      await cp(join(ROOT, "package.json"), join(copy, "package.json"));
      const command = join(copy, "dist", "cli", "warden.cjs");
      const bundled = await traced(command, ["run", "--help"]);
      // Without its cache beside it, the bundle is compiled as it loads.
      assert.deepEqual(loadPhases(bundled.phases), [
        loadPhaseName(join(copy, "dist", "cli", "program.cjs"), false),
      ]);
      assert.equal(bundled.stdout, (await traced(CLI, ["run", "--help"])).stdout);
      assert.equal((await traced(command, ["ls", "--json"])).stdout, "[]\n");
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  },
);
