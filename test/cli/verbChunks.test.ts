// What the verbs people run most run as they start. The built program (dist/cli/program.cjs)
// runs a module on its first use when it is reached only through an import() call, as each verb
// file is (src/cli/verbFile.ts); so what a verb runs is the program's start and the verb's file
// with everything they import, which the metafile of the same program split into chunks at its
// import() calls shows (built in memory here, with the options scripts/bundleCli.mjs gives). Code a verb
// does not use (zod's schemas, the sandboxes, the egress proxy) would cost its start the time to
// run it. Node's own modules that a command loads are read from the built command as it runs.
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build, type BuildOptions, type Metafile } from "esbuild";
import { cleanEnv } from "../e2e/fixtures.js";
import { skipWhen } from "../support/skipWhen.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(ROOT, "dist", "cli", "warden.cjs");
const execFileAsync = promisify(execFile);

/** The metafile of one of the builds scripts/bundleCli.mjs gives options for, built in memory. */
async function buildMeta(
  which: "verbGraphOptions" | "quickBuildOptions" | "programBuildOptions",
): Promise<Metafile> {
  const script = pathToFileURL(join(ROOT, "scripts", "bundleCli.mjs")).href;
  const options = ((await import(script)) as Record<string, BuildOptions>)[which];
  const result = await build({ ...options, write: false, metafile: true });
  return result.metafile;
}

/** The whole program split at its import() calls. */
const meta = buildMeta("verbGraphOptions");

/** What a command line loads before its verb runs: its files, and Node's modules it imports. */
interface Loaded {
  inputs: string[];
  builtins: string[];
}

/** The program's start with the chunk of `verbFile` (src/cli/verbs.ts imports one per verb). */
async function loadedBy(verbFile: string | undefined): Promise<Loaded> {
  const { outputs } = await meta;
  const entryOf = (source: string): string => {
    const found = Object.keys(outputs).find((path) => outputs[path]?.entryPoint === source);
    assert.ok(found !== undefined, `the bundle has a chunk for ${source}`);
    return found;
  };
  const pending = [entryOf("src/cli/wholeProgram.ts")];
  if (verbFile !== undefined) pending.push(entryOf(verbFile));
  const seen = new Set<string>();
  const inputs = new Set<string>();
  const builtins = new Set<string>();
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    if (seen.has(path)) continue;
    seen.add(path);
    const output = outputs[path];
    assert.ok(output !== undefined, `the bundle has ${path}`);
    for (const input of Object.keys(output.inputs)) inputs.add(input);
    for (const imported of output.imports) {
      // A dynamic import loads only when the code that makes it runs.
      if (imported.kind !== "import-statement") continue;
      if (imported.external === true) builtins.add(imported.path);
      else pending.push(imported.path);
    }
  }
  return { inputs: [...inputs], builtins: [...builtins] };
}

function matching(loaded: Loaded, pattern: RegExp): string[] {
  return loaded.inputs.filter((input) => pattern.test(input));
}

const ZOD = /(^|\/)node_modules\/zod\//;
const UNUSED_FOLDERS = /^src\/(sandbox|egress|config|guest)\//;
/**
 * Node's modules that cost a start milliseconds; the bundle loads them on first use. The first
 * read of `performance` loads node:perf_hooks, which only a trace (WARDEN_TRACE) needs; the first
 * use of process.stdout or process.stderr on a pipe loads node:net, and node:tty loads it too
 * (src/cli/standardStreams.ts writes without them).
 */
const HEAVY_BUILTINS = [
  "node:crypto",
  "node:child_process",
  "node:perf_hooks",
  "node:net",
  "node:tty",
];

test("warden ls loads no zod, no sandbox, egress or agent code", async () => {
  const loaded = await loadedBy("src/cli/ls.ts");
  assert.ok(matching(loaded, /^src\/store\//).length > 0, "ls loads the store it lists");
  assert.deepEqual(matching(loaded, ZOD), []);
  assert.deepEqual(matching(loaded, UNUSED_FOLDERS), []);
  assert.deepEqual(matching(loaded, /^src\/agents\//), []);
});

test("warden show and warden send load no zod, no agent adapter, no sandbox, egress or config code", async () => {
  for (const verb of ["show", "send"]) {
    const loaded = await loadedBy(`src/cli/${verb}.ts`);
    assert.deepEqual(matching(loaded, ZOD), [], verb);
    assert.deepEqual(matching(loaded, /^src\/agents\//), [], verb);
    assert.deepEqual(matching(loaded, UNUSED_FOLDERS), [], verb);
  }
});

/**
 * Runs the built command with `args` and hands back what it loaded of Node's own modules
 * (process.moduleLoadList) and whether zod ran: the bundle's zod sets a global as it starts.
 */
async function loadedAtRun(
  args: string[],
  stdout: "pipe" | "/dev/null" = "pipe",
): Promise<{ builtins: string[]; zodRan: boolean }> {
  const dir = await mkdtemp(join(tmpdir(), "warden-loaded-"));
  try {
    const report = join(dir, "loaded.json");
    const preload = join(dir, "report.cjs");
    await writeFile(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(report)},
         JSON.stringify({ modules: process.moduleLoadList,
           zodRan: globalThis.__zod_globalConfig !== undefined })));`,
    );
    const argv = ["--require", preload, CLI, ...args];
    const env = cleanEnv({ WARDEN_DATA_DIR: join(dir, "data") });
    // Its status is not the point. A shell sends its stdout to /dev/null where the case says.
    const ran =
      stdout === "pipe"
        ? execFileAsync(process.execPath, argv, { env })
        : execFileAsync("sh", ["-c", '"$@" > /dev/null', "sh", process.execPath, ...argv], { env });
    await ran.catch(() => undefined);
    const loaded = JSON.parse(await readFile(report, "utf8")) as {
      modules: string[];
      zodRan: boolean;
    };
    const builtins = loaded.modules
      .filter((entry) => entry.startsWith("NativeModule "))
      .map((entry) => `node:${entry.slice("NativeModule ".length)}`);
    return { builtins, zodRan: loaded.zodRan };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const NOT_BUILT = skipWhen(existsSync(CLI) ? false : "warden is not built: npm run build");

test(
  "the built ls, show, send and --version, writing to pipes, run without node:crypto, node:child_process, node:perf_hooks, node:net, node:tty or zod",
  { skip: NOT_BUILT },
  async () => {
    // show and send of a task that is not there write their error on stderr.
    const lines = [["ls"], ["show", "01abc"], ["send", "01abc", "hello"], ["--version"]];
    for (const args of lines) {
      const { builtins, zodRan } = await loadedAtRun(args);
      assert.ok(builtins.includes("node:fs"), `${args.join(" ")}: the report reads`);
      const heavy = builtins.filter((name) => HEAVY_BUILTINS.includes(name));
      assert.deepEqual(heavy, [], args.join(" "));
      assert.equal(zodRan, false, `${args.join(" ")} runs zod`);
    }
    // Output to /dev/null is told from a terminal without node:tty (help asks for its width).
    const devNull = await loadedAtRun(["ls", "--help"], "/dev/null");
    assert.deepEqual(
      devNull.builtins.filter((name) => HEAVY_BUILTINS.includes(name)),
      [],
    );
    // The report can tell: a verb that checks its settings with zod runs it.
    assert.equal((await loadedAtRun(["run", "--help"])).zodRan, true);
  },
);

test("warden --version loads neither zod nor the store", async () => {
  const loaded = await loadedBy(undefined);
  assert.deepEqual(matching(loaded, ZOD), []);
  assert.deepEqual(matching(loaded, /^src\/store\//), []);
});

const NATS = /(^|\/)node_modules\/@nats-io\//;

test("a verb that works against a fleet loads the NATS client only when a fleet is named", async () => {
  for (const verb of ["ls", "show", "send", "watch", "wait", "cancel", "logs", "run", "fetch"]) {
    const loaded = await loadedBy(`src/cli/${verb}.ts`);
    assert.deepEqual(matching(loaded, NATS), [], verb);
    assert.deepEqual(matching(loaded, /^src\/fleet\//), [], verb);
  }
});

test("a verb of this machine only (exec, rm) loads neither the NATS client nor the config's schema", async () => {
  for (const verb of ["exec", "rm"]) {
    const loaded = await loadedBy(`src/cli/${verb}.ts`);
    assert.deepEqual(matching(loaded, NATS), [], verb);
    assert.deepEqual(matching(loaded, /^src\/config\/(configKeys|readConfig)\.ts$/), [], verb);
  }
});

const outputBytes = (meta: Metafile): number =>
  Object.values(meta.outputs).reduce((sum, output) => sum + output.bytes, 0);

test("the quick program holds ls, show and send, and none of the host's task code, the sandboxes or the fleet's worker", async () => {
  const [quick, whole] = await Promise.all([
    buildMeta("quickBuildOptions"),
    buildMeta("programBuildOptions"),
  ]);
  const inputs = Object.keys(quick.inputs);
  const files = (pattern: RegExp): string[] => inputs.filter((input) => pattern.test(input));
  for (const verb of ["ls", "show", "send"]) assert.ok(inputs.includes(`src/cli/${verb}.ts`), verb);
  assert.ok(files(/^src\/store\//).length > 0, "it holds the store");
  assert.deepEqual(files(/^src\/cli\/(run|logs|watch|exec|worker|serve)\.ts$/), []);
  assert.deepEqual(files(/^src\/(sandbox|egress|guest|agents|web)\//), []);
  assert.deepEqual(files(/^src\/fleet\/(worker\/|submitTask)/), []);
  assert.deepEqual(files(/^src\/host\/(executeTask|createTask|resolveStart)\.ts$/), []);
  // What it is for: a start reads and compiles a bundle in proportion to its bytes.
  const [quickBytes, wholeBytes] = [outputBytes(quick), outputBytes(whole)];
  assert.ok(quickBytes < 0.7 * wholeBytes, `${quickBytes} bytes against ${wholeBytes}`);
});
