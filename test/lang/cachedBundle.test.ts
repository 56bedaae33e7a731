// runCachedBundle: a CommonJS bundle run with the V8 code cache beside it. The cache is written
// at a process's exit, so the runs that write and take it are child processes.
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  codeCachePath,
  loadPhaseName,
  runCachedBundle,
  TRACE_ENV,
  traceFromEnv,
  WRITE_CODE_CACHE_ENV,
  type TracedPhase,
} from "../../src/lang/index.js";

const execFileAsync = promisify(execFile);
const CACHED_BUNDLE = fileURLToPath(new URL("../../src/lang/cachedBundle.ts", import.meta.url));

/** A bundle of some size (V8 keeps no cache of a tiny script) that exports what it was given. */
function bundleText(): string {
  const functions = Array.from(
    { length: 200 },
    (_, i) => `function f${i}(x) { return x.map((y) => y * ${i} + ${i}).filter(Boolean); }`,
  ).join("\n");
  return `${functions}\nmodule.exports = { sum: f1([1, 2]).length, file: __filename, dir: __dirname, path: require("node:path").sep };\n`;
}

async function withBundle(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "warden-cached-bundle-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const bundle = join(dir, "program.cjs");
  await writeFile(bundle, bundleText());
  return bundle;
}

/** Runs the bundle in a new Node process and hands back the phases it traced. */
async function runInChild(bundle: string, env: Record<string, string> = {}): Promise<string[]> {
  const trace = `${bundle}.trace-${Math.random().toString(16).slice(2)}`;
  const code = `import { runCachedBundle, traceFromEnv } from ${JSON.stringify(CACHED_BUNDLE.replace("cachedBundle.ts", "index.ts"))};
runCachedBundle(${JSON.stringify(bundle)}, traceFromEnv(process.env));`;
  await execFileAsync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    env: { ...process.env, ...env, [TRACE_ENV]: trace },
  });
  const lines = (await readFile(trace, "utf8")).trim().split("\n");
  return lines.map((line) => (JSON.parse(line) as TracedPhase).name);
}

test("a bundle runs as a CommonJS module beside its own path and hands back its exports", async (t) => {
  const bundle = await withBundle(t);
  const exported = runCachedBundle(bundle) as Record<string, unknown>;
  assert.deepEqual(exported, { sum: 2, file: bundle, dir: join(bundle, ".."), path: "/" });
});

test("a run asked to write the cache writes it at its exit, and the next run takes it", async (t) => {
  const bundle = await withBundle(t);
  assert.deepEqual(await runInChild(bundle, { [WRITE_CODE_CACHE_ENV]: "1" }), [
    loadPhaseName(bundle, false),
  ]);
  assert.ok((await stat(codeCachePath(bundle))).size > 0, "the cache is written beside the bundle");
  assert.deepEqual(await runInChild(bundle), [loadPhaseName(bundle, true)]);
});

test("a cache that is not this bundle's is refused, and the bundle still runs", async (t) => {
  const bundle = await withBundle(t);
  await runInChild(bundle, { [WRITE_CODE_CACHE_ENV]: "1" });
  await writeFile(bundle, bundleText().replace("f1([1, 2])", "f1([1, 2, 3])"));
  assert.deepEqual(await runInChild(bundle), [loadPhaseName(bundle, false)]);
  await writeFile(codeCachePath(bundle), Buffer.alloc(4096, 7));
  const phases: string[] = [];
  const file = join(bundle, "..", "trace.jsonl");
  const exported = runCachedBundle(bundle, traceFromEnv({ [TRACE_ENV]: file })) as {
    sum: number;
  };
  assert.equal(exported.sum, 3, "the bundle's own code ran");
  for (const line of (await readFile(file, "utf8")).trim().split("\n")) {
    phases.push((JSON.parse(line) as TracedPhase).name);
  }
  assert.deepEqual(phases, [loadPhaseName(bundle, false)]);
});

test("without a cache a bundle is compiled and run as usual", async (t) => {
  const bundle = await withBundle(t);
  assert.deepEqual(await runInChild(bundle), [loadPhaseName(bundle, false)]);
});

test("a bundle with characters beyond ASCII is read as UTF-8, one of ASCII alone as it is", async (t) => {
  const bundle = await withBundle(t);
  await writeFile(bundle, 'module.exports = { text: "µs → ✓", plain: "ascii" };\n');
  assert.deepEqual(runCachedBundle(bundle), { text: "µs → ✓", plain: "ascii" });
  await writeFile(bundle, 'module.exports = { text: "\\u00b5s" };\n');
  assert.deepEqual(runCachedBundle(bundle), { text: "µs" });
});
