// Bundles the `warden` command twice from the same source (src/cli/main.ts chooses which runs):
// - as ES modules: dist/cli/main.js (the file package.json's "bin" names) becomes the program's
//   start, written over what tsc emitted there, and each verb's code goes into chunks under
//   dist/chunks/ that load only when that verb runs (src/cli/verbs.ts). Node loads a few files
//   much faster than the four hundred-odd modules tsc emits and the packages they import.
// - as one CommonJS file, dist/cli/program.cjs, with V8's code cache beside it
//   (program.codecache): the verbs that run a task load most of the program, and compiling it
//   was about 60 ms of their start, which the cache saves (src/lang/cachedBundle.ts).
// Run after tsc, from `npm run build`; it reads src/, so running it twice gives the same.
import { execFileSync } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { URL, fileURLToPath } from "node:url";
import { build } from "esbuild";
import { directImportsPlugin } from "./directImports.mjs";
import { lazyBuiltinsPlugin } from "./lazyBuiltins.mjs";
import {
  importsHaveNoEffects,
  zodEnglishOnly,
  zodNamespaceImport,
  zodWithoutEval,
} from "./smallerImports.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
// The chunks sit one folder below dist/, as every file tsc emits does, so that the paths the
// code finds from import.meta.url (the runner, the package root) resolve the same in a chunk.
const CHUNKS = "chunks";

/**
 * esbuild's options for the bundle. A test builds it in memory with these (and a metafile) to
 * check which code each verb loads.
 */
export const cliBuildOptions = {
  absWorkingDir: root,
  entryPoints: { "cli/main": "src/cli/main.ts" },
  outdir: "dist",
  chunkNames: `${CHUNKS}/[name]-[hash]`,
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // fs-ext is a native addon: its compiled .node file loads from node_modules, as before.
  external: ["fs-ext"],
  plugins: [
    importsHaveNoEffects(src),
    directImportsPlugin(src, [zodNamespaceImport]),
    zodEnglishOnly,
    zodWithoutEval,
    lazyBuiltinsPlugin(src),
  ],
  // The CommonJS packages inside (commander, yaml, tar-stream) call require() for Node's
  // modules, which an ES module has only when it makes one.
  banner: {
    js: "import { createRequire as wardenCreateRequire } from 'node:module'; const require = wardenCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
};

/** The whole program as one CommonJS file, for the verbs that run a task (src/cli/main.ts). */
const PROGRAM_BUNDLE = join(root, "dist", "cli", "program.cjs");

/** esbuild's options for the CommonJS program: the same code, trimmed the same way. */
export const programBuildOptions = {
  absWorkingDir: root,
  entryPoints: ["src/cli/program.ts"],
  outfile: PROGRAM_BUNDLE,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  external: ["fs-ext"],
  // The bundle sits in dist/cli/, one folder below dist/ as the chunks do, so the paths the code
  // finds from import.meta.url, here the bundle's own path, resolve the same.
  define: { "import.meta.url": "wardenModuleUrl" },
  banner: { js: 'const wardenModuleUrl = require("node:url").pathToFileURL(__filename).href;' },
  plugins: [
    importsHaveNoEffects(src),
    directImportsPlugin(src, [zodNamespaceImport]),
    zodEnglishOnly,
    zodWithoutEval,
  ],
  // Each start reads the whole file before V8 takes its cache: without blanks, comments and
  // redundant syntax it is about half the bytes. Names stay, so stack traces still read.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
};

// Run as a script (`npm run build`), it writes the bundles; imported, it only gives its options.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await rm(join(root, "dist", CHUNKS), { recursive: true, force: true });
  await build(cliBuildOptions);
  await build(programBuildOptions);
  // The cache, written at the exit of one `run --help` through the bundle: it then holds the
  // code a start runs (every verb's registration, commander's parsing), not only the top level.
  const cache = PROGRAM_BUNDLE.replace(/\.cjs$/, ".codecache");
  await rm(cache, { force: true });
  execFileSync(process.execPath, [join(root, "dist", "cli", "main.js"), "run", "--help"], {
    env: { ...process.env, WARDEN_WRITE_CODE_CACHE: "1" },
    stdio: "ignore",
  });
  // A cache that is not there would only make each start compile again: the build says so.
  await readFile(cache).catch(() => {
    throw new Error(`the code cache ${cache} was not written`);
  });
}
