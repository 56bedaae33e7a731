// Bundles the `warden` command: dist/cli/main.js (the file package.json's "bin" names) becomes
// the program's start, written over what tsc emitted there, and each verb's code goes into
// chunks under dist/chunks/ that load only when that verb runs (src/cli/verbs.ts). Node loads a
// few files much faster than the four hundred-odd modules tsc emits and the packages they
// import. Run after tsc, from `npm run build`; it reads src/, so running it twice gives the same.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { URL, fileURLToPath } from "node:url";
import { build } from "esbuild";
import { directImportsPlugin } from "./directImports.mjs";
import { lazyBuiltinsPlugin } from "./lazyBuiltins.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
// The chunks sit one folder below dist/, as every file tsc emits does, so that the paths the
// code finds from import.meta.url (the runner, the package root) resolve the same in a chunk.
const CHUNKS = "chunks";

/**
 * Tells esbuild that importing a file of src/ has no effect beyond its exports (the house rules
 * allow no top-level work), so a file of which nothing is used is left out even when an index
 * re-exports it: `ls` then carries the part of the host it calls, not the whole host.
 */
const importsHaveNoEffects = {
  name: "imports-have-no-effects",
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === importsHaveNoEffects.name) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: importsHaveNoEffects.name,
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      if (!resolved.path.startsWith(src + "/")) return undefined;
      return { path: resolved.path, sideEffects: false };
    });
  },
};

/**
 * zod's namespace object names every locale it has (`z.locales`), so a bundle holds all fifty of
 * them, about a third of the code a verb loads, though warden's messages are English and nothing
 * of warden reads `z.locales`. Here the namespace keeps English alone, the locale zod sets itself.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/")
        ? { path: join(args.resolveDir, "../locales/en.js"), namespace: zodEnglishOnly.name }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: zodEnglishOnly.name }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: root,
    }));
  },
};

/**
 * `import { z } from "zod"` takes zod's namespace object whole: every kind of schema, zod's JSON
 * Schema converters and its compiler, about 390 kB that every verb checking a value loads,
 * though warden calls a few dozen of its functions. The bundle imports the same functions as a
 * namespace of the module (`import * as z`), of which esbuild keeps only those some file calls,
 * about half of it. The source keeps zod's documented import.
 */
function zodNamespaceImport(text) {
  return text.replaceAll('import { z } from "zod";', 'import * as z from "zod/v4";');
}

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
    importsHaveNoEffects,
    directImportsPlugin(src, [zodNamespaceImport]),
    zodEnglishOnly,
    lazyBuiltinsPlugin(src),
  ],
  // The CommonJS packages inside (commander, yaml, tar-stream) call require() for Node's
  // modules, which an ES module has only when it makes one.
  banner: {
    js: "import { createRequire as wardenCreateRequire } from 'node:module'; const require = wardenCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
};

// Run as a script (`npm run build`), it writes the bundle; imported, it only gives its options.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await rm(join(root, "dist", CHUNKS), { recursive: true, force: true });
  await build(cliBuildOptions);
}
