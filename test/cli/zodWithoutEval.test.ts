// The bundles' zod makes no code from strings: scripts/smallerImports.mjs starts zod's config
// with `jitless: true` (zodWithoutEval), and a parse then compiles no parser of its own.
import { strict as assert } from "node:assert";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build, type Plugin } from "esbuild";
import { skipWhen } from "../support/skipWhen.js";
// @ts-expect-error: the build scripts are plain JavaScript without declarations.
import { zodWithoutEval } from "../../scripts/smallerImports.mjs";

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PROGRAM = join(ROOT, "dist", "cli", "program.cjs");
const RUNNER = join(ROOT, "dist", "guest", "runner.cjs");

/** Counts the functions made from strings while an object schema is made and parsed with. */
const ENTRY = `
import * as z from "zod/v4";
const made = [];
globalThis.Function = new Proxy(Function, {
  construct(target, args) {
    made.push(args.length);
    return Reflect.construct(target, args);
  },
});
const schema = z.object({ name: z.string(), count: z.number() });
schema.parse({ name: "a", count: 1 });
schema.parse({ name: "b", count: 2 });
process.stdout.write(JSON.stringify({ made: made.length }));
`;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "warden-zod-eval-"));
  await writeFile(join(dir, "entry.mjs"), ENTRY);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Bundles the entry as the build scripts bundle warden, with `plugins`, and runs it. */
async function madeFromStrings(plugins: Plugin[]): Promise<number> {
  const out = join(dir, `out-${plugins.length}.cjs`);
  await build({
    entryPoints: [join(dir, "entry.mjs")],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: out,
    nodePaths: [join(ROOT, "node_modules")],
    plugins,
    logLevel: "silent",
  });
  const { stdout } = await execFileAsync(process.execPath, [out]);
  return (JSON.parse(stdout) as { made: number }).made;
}

test("zod as bundled makes its parsers from strings, and with zodWithoutEval it makes none", async () => {
  assert.ok((await madeFromStrings([])) > 0, "without the plugin zod compiles a parser");
  assert.equal(await madeFromStrings([zodWithoutEval as Plugin]), 0);
});

/** Every built file of warden's, under dist/. */
async function builtFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await builtFiles(path)));
    else if (/\.c?js$/.test(entry.name)) out.push(path);
  }
  return out;
}

test(
  "every built file that holds zod starts its config jitless, the two bundles among them",
  {
    skip: skipWhen(
      existsSync(PROGRAM) && existsSync(RUNNER) ? false : "warden is not built: npm run build",
    ),
  },
  async () => {
    const holders: string[] = [];
    for (const file of await builtFiles(join(ROOT, "dist"))) {
      const text = await readFile(file, "latin1");
      if (!text.includes("__zod_globalConfig")) continue;
      holders.push(file);
      assert.match(text, /__zod_globalConfig ?= ?\{ ?jitless: ?(!0|true) ?\}/, file);
    }
    assert.ok(holders.includes(PROGRAM) && holders.includes(RUNNER), holders.join(", "));
  },
);
