// Bundles the runner, which every sandbox starts, into one file, and makes V8's code cache of it.
// Node takes about 110 ms less to load one file than the hundred-odd modules tsc emits (measured
// with `node dist/guest/...  --help`: 0.25 s against 0.14 s), and about 30 ms of CPU less again
// when V8 reads the compiled code from a cache instead of compiling it. So the build writes:
// - dist/guest/warden-guest.cjs: the runner, bundled as CommonJS, which V8's vm.Script (the
//   only way Node 20 takes a code cache) compiles;
// - dist/guest/warden-guest.mjs: the command (package.json's bin, what the host starts), a copy
//   of scripts/guestLoader.mjs, which runs the bundle with the cache;
// - dist/guest/warden-guest.codecache: the cache, written by one run of `--help` so that it
//   holds the code the start runs, not only the top level.
// Run after tsc, from `npm run build`.
import { execFileSync } from "node:child_process";
import process from "node:process";
import { copyFile, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { URL, fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const guest = join(root, "dist", "guest");
const bundle = join(guest, "warden-guest.cjs");
const command = join(guest, "warden-guest.mjs");
const cache = join(guest, "warden-guest.codecache");

await build({
  absWorkingDir: root,
  entryPoints: ["dist/guest/main.js"],
  outfile: bundle,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  // The runner finds files beside itself (the permission tool) from import.meta.url, which
  // CommonJS lacks; the bundle's own path stands in for it.
  define: { "import.meta.url": "wardenModuleUrl" },
  banner: { js: 'const wardenModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  // Every sandbox reads and hashes the whole file before it runs a line of it: without blanks,
  // comments and redundant syntax it is about half the bytes. Names stay, so a stack trace from
  // inside a sandbox still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
});
// The loader wraps the bundle in a function, where the #! line that main.ts starts with is not
// valid JavaScript.
const text = await readFile(bundle, "utf8");
if (text.startsWith("#!")) await writeFile(bundle, text.slice(text.indexOf("\n") + 1));
await copyFile(join(root, "scripts", "guestLoader.mjs"), command);
await rm(cache, { force: true });
execFileSync(process.execPath, [command, "--help"], {
  env: { ...process.env, WARDEN_GUEST_WRITE_CODE_CACHE: "1" },
  stdio: "ignore",
});
