// Bundles the runner, which every sandbox starts, into one file, and makes V8's code cache of it.
// Node takes about 110 ms less to load one file than the hundred-odd modules tsc emits (measured
// with `node dist/guest/...  --help`: 0.25 s against 0.14 s), and about 30 ms of CPU less again
// when V8 reads the compiled code from a cache instead of compiling it. So the build writes:
// - dist/guest/runner.cjs: the runner, bundled as CommonJS, which V8's vm.Script (the only way
//   Node 20 takes a code cache) compiles;
// - dist/guest/warden-guest.cjs: the command (package.json's bin, what the host starts), built
//   from src/guest/command.ts, which runs the bundle with the cache (src/lang/cachedBundle.ts);
//   CommonJS too, so that Node starts it without its loader for ES modules (about 10 ms);
// - dist/guest/runner.codecache: the cache, written by one run of `--help` so that it holds the
//   code the start runs, not only the top level; scripts/bundleCli.mjs writes it again at the
//   end of a whole task (scripts/warmProgramCache.mjs), once the command that runs one is built.
// Run after tsc, from `npm run build`.
import { execFileSync } from "node:child_process";
import process from "node:process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { URL, fileURLToPath } from "node:url";
import { build } from "esbuild";
import { directImportsPlugin } from "./directImports.mjs";
import { moduleUrlOptions } from "./moduleUrl.mjs";
import {
  importsHaveNoEffects,
  zodEnglishOnly,
  zodNamespaceImport,
  zodWithoutEval,
} from "./smallerImports.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
const guest = join(root, "dist", "guest");
const bundle = join(guest, "runner.cjs");
const command = join(guest, "warden-guest.cjs");
const cache = join(guest, "runner.codecache");

/** What both files are built with: CommonJS for Node 20, trimmed as the `warden` bundle is. */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  // The runner finds files beside itself (the permission tool, the bundle) from import.meta.url.
  ...moduleUrlOptions,
  // Every sandbox reads the whole file before it runs a line of it: without blanks, comments
  // and redundant syntax it is about half the bytes. Names stay, so a stack trace from inside a
  // sandbox still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  // The same trims as the `warden` bundle's (scripts/smallerImports.mjs): zod's locales and the
  // kinds of schema the runner never uses are left out, about 40% of the file.
  plugins: [
    importsHaveNoEffects(src),
    directImportsPlugin(src, [zodNamespaceImport]),
    zodEnglishOnly,
    zodWithoutEval,
  ],
  logLevel: "warning",
};

await build({ ...common, entryPoints: ["src/guest/main.ts"], outfile: bundle });
await build({ ...common, entryPoints: ["src/guest/command.ts"], outfile: command });
// The cache's wrapper puts the bundle inside a function, where the #! line that main.ts starts
// with is not valid JavaScript.
const text = await readFile(bundle, "utf8");
if (text.startsWith("#!")) await writeFile(bundle, text.slice(text.indexOf("\n") + 1));
await rm(cache, { force: true });
execFileSync(process.execPath, [command, "--help"], {
  env: { ...process.env, WARDEN_WRITE_CODE_CACHE: "1" },
  stdio: "ignore",
});
