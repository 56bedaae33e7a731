// What the verbs people run most load as they start, read from the metafile of the bundle built
// as `npm run build` builds it (in memory here): the code of the program's start and of the
// verb's own chunk, with everything they import before any code runs. Code a verb does not use
// (zod's schemas, the sandboxes, the egress proxy) costs its start the time to load it. The verbs
// that run a task load the CommonJS program instead when it is built (test/cli/programBundle);
// these are the modules they load without it, as under tsx.
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type BuildOptions, type Metafile } from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The bundle's metafile, built with the options scripts/bundleCli.mjs builds with. */
async function bundleMeta(): Promise<Metafile> {
  const script = pathToFileURL(join(ROOT, "scripts", "bundleCli.mjs")).href;
  const { cliBuildOptions } = (await import(script)) as { cliBuildOptions: BuildOptions };
  const result = await build({ ...cliBuildOptions, write: false, metafile: true });
  return result.metafile;
}

const meta = bundleMeta();

/** What a command line loads before its verb runs: its files, and Node's modules it imports. */
interface Loaded {
  inputs: string[];
  builtins: string[];
}

/** The program's start with the chunk of `verbFile` (src/cli/verbs.ts loads one per verb). */
async function loadedBy(verbFile: string | undefined): Promise<Loaded> {
  const { outputs } = await meta;
  const entryOf = (source: string): string => {
    const found = Object.keys(outputs).find((path) => outputs[path]?.entryPoint === source);
    assert.ok(found !== undefined, `the bundle has a chunk for ${source}`);
    return found;
  };
  // main.ts imports the program (program.ts) as it starts, in a chunk of its own.
  const programChunk = Object.keys(outputs).find(
    (path) => outputs[path]?.inputs["src/cli/program.ts"] !== undefined,
  );
  assert.ok(programChunk !== undefined, "the bundle has a chunk for src/cli/program.ts");
  const pending = [entryOf("src/cli/main.ts"), programChunk];
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
/** Node's modules that cost a start milliseconds; the bundle loads them on first use. */
const HEAVY_BUILTINS = ["node:crypto", "node:child_process"];

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

test("ls, show, send and --version load neither node:crypto nor node:child_process as they start", async () => {
  for (const verbFile of ["src/cli/ls.ts", "src/cli/show.ts", "src/cli/send.ts", undefined]) {
    const loaded = await loadedBy(verbFile);
    const heavy = loaded.builtins.filter((name) => HEAVY_BUILTINS.includes(name));
    assert.deepEqual(heavy, [], verbFile ?? "--version");
  }
});

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
