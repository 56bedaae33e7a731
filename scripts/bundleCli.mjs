// Bundles the `warden` command from src/, as the runner is bundled (scripts/bundleGuest.mjs):
// - dist/cli/program.cjs: the whole program (src/cli/wholeProgram.ts) as one CommonJS file,
//   which V8's vm.Script (the only way Node 20 takes a code cache) compiles;
// - dist/cli/quick.cjs: the quick program (src/cli/quickProgram.ts), `ls`, `show`, `send` and
//   --version alone, a bundle of about 60% of the bytes that those run from instead;
// - dist/cli/warden.cjs: the command (package.json's bin), built from src/cli/command.ts, which
//   runs one of the two with its cache (src/lang/cachedBundle.ts); CommonJS too, so that Node
//   starts it without its loader for ES modules, which cost every command about 25 ms;
// - dist/cli/program-task.codecache, program.codecache and quick.codecache: the caches, for the
//   verbs that run a task, for the program's other verbs, and for the quick program, written at
//   the end of a `warden run` of a task that does nothing, of a `logs`, and of a process that ran
//   `ls`, `show` and `send` (scripts/warmProgramCache.mjs), so that each holds the code its verbs
//   run, not only the code of the start.
// Node loads one file much faster than the four hundred-odd modules tsc emits and the packages
// they import, and reads compiled code from the cache faster than it compiles it. The program
// still runs only the code of the verb a command line names: each verb file is imported with
// import(), which esbuild turns into code that runs its modules on first use (src/cli/verbFile.ts).
// Run after tsc, from `npm run build`; it reads src/, so running it twice gives the same.
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { URL, fileURLToPath } from "node:url";
import { build } from "esbuild";
import { directImportsPlugin } from "./directImports.mjs";
import { lazyBuiltinsPlugin } from "./lazyBuiltins.mjs";
import { moduleUrlOptions } from "./moduleUrl.mjs";
import { warmProgramCache } from "./warmProgramCache.mjs";
import {
  importsHaveNoEffects,
  zodEnglishOnly,
  zodNamespaceImport,
  zodWithoutEval,
} from "./smallerImports.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
const cli = join(root, "dist", "cli");

/** The whole program as one CommonJS file. */
const PROGRAM_BUNDLE = join(cli, "program.cjs");

/** The quick program, as one CommonJS file. */
const QUICK_BUNDLE = join(cli, "quick.cjs");

/** The command that runs it, package.json's bin. */
const COMMAND = join(cli, "warden.cjs");

/** The trims both files are built with (scripts/smallerImports.mjs, scripts/lazyBuiltins.mjs). */
const plugins = [
  importsHaveNoEffects(src),
  directImportsPlugin(src, [zodNamespaceImport]),
  zodEnglishOnly,
  zodWithoutEval,
  lazyBuiltinsPlugin(src),
];

/** What both files are built with: CommonJS for Node 20. */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  // fs-ext is a native addon: its compiled .node file loads from node_modules, as before.
  external: ["fs-ext"],
  ...moduleUrlOptions,
  plugins,
  logLevel: "warning",
};

/** esbuild's options for the program. */
export const programBuildOptions = {
  ...common,
  entryPoints: ["src/cli/wholeProgram.ts"],
  outfile: PROGRAM_BUNDLE,
  // Each start reads the whole file before V8 takes its cache: without blanks, comments and
  // redundant syntax it is about half the bytes. Names stay, so stack traces still read.
  minifyWhitespace: true,
  minifySyntax: true,
};

/** esbuild's options for the quick program. */
export const quickBuildOptions = {
  ...programBuildOptions,
  entryPoints: ["src/cli/quickProgram.ts"],
  outfile: QUICK_BUNDLE,
};

/**
 * The whole program split into ES module chunks at its import() calls. It is never written: a
 * test reads from its metafile which modules each verb runs, since esbuild runs a module of the
 * CommonJS program on first use exactly when it is reached only through an import() call.
 */
export const verbGraphOptions = {
  ...common,
  entryPoints: ["src/cli/wholeProgram.ts"],
  format: "esm",
  splitting: true,
  outdir: join(root, "dist"),
  chunkNames: "chunks/[name]-[hash]",
  define: {},
  banner: {},
};

// Run as a script (`npm run build`), it writes the bundles; imported, it only gives its options.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // Earlier builds wrote the command as ES module chunks here.
  await rm(join(root, "dist", "chunks"), { recursive: true, force: true });
  await build(programBuildOptions);
  await build(quickBuildOptions);
  await build({ ...common, entryPoints: ["src/cli/command.ts"], outfile: COMMAND });
  // The names src/cli/command.ts reads.
  const caches = {
    task: join(cli, "program-task.codecache"),
    whole: join(cli, "program.codecache"),
    quick: join(cli, "quick.codecache"),
  };
  const warmedBy = await warmProgramCache(COMMAND, caches);
  process.stdout.write(`warden's code cache for tasks: written by ${warmedBy}\n`);
  // A cache that is not there would only make each start compile again: the build says so.
  for (const file of Object.values(caches)) {
    await readFile(file).catch(() => {
      throw new Error(`the code cache ${file} was not written`);
    });
  }
}
