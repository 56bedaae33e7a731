// What both bundles (the `warden` command and the runner every sandbox starts) do to load less
// code than the source imports, without changing the source: esbuild plugins and a rewrite of a
// file's text, used by scripts/bundleCli.mjs and scripts/bundleGuest.mjs.
import { join } from "node:path";

/**
 * Tells esbuild that importing a file under `srcDir` has no effect beyond its exports (the house
 * rules allow no top-level work), so a file of which nothing is used is left out even when an
 * index re-exports it: `ls` then carries the part of the host it calls, not the whole host.
 */
export function importsHaveNoEffects(srcDir) {
  const name = "imports-have-no-effects";
  return {
    name,
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (args.pluginData === name) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: name,
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (!resolved.path.startsWith(srcDir + "/")) return undefined;
        return { path: resolved.path, sideEffects: false };
      });
    },
  };
}

/**
 * zod's namespace object names every locale it has (`z.locales`), so a bundle holds all fifty of
 * them, about a third of the code a verb loads and 290 kB of the runner's megabyte, though
 * warden's messages are English and nothing of warden reads `z.locales`. Here the namespace keeps
 * English alone, the locale zod sets itself.
 */
export const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/")
        ? { path: join(args.resolveDir, "../locales/en.js"), namespace: zodEnglishOnly.name }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: zodEnglishOnly.name }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: join(args.path, ".."),
    }));
  },
};

/**
 * `import { z } from "zod"` takes zod's namespace object whole: every kind of schema, zod's JSON
 * Schema converters and its compiler, about 390 kB that every bundle checking a value loads,
 * though warden calls a few dozen of its functions. The bundle imports the same functions as a
 * namespace of the module (`import * as z`), of which esbuild keeps only those some file calls,
 * about half of it. The source keeps zod's documented import.
 */
export function zodNamespaceImport(text) {
  return text.replaceAll('import { z } from "zod";', 'import * as z from "zod/v4";');
}
