// What both bundles (the `warden` command and the runner every sandbox starts) do to load less
// code than the source imports, without changing the source: esbuild plugins and a rewrite of a
// file's text, used by scripts/bundleCli.mjs and scripts/bundleGuest.mjs.
import { readFile } from "node:fs/promises";
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

/**
 * zod compiles a parser for each object schema with `new Function` the first time it parses
 * with it. A warden process parses each of its schemas a few times at most, so the compile is
 * cost without gain (measured: `createTask` 55 → 51 ms, the runner's read of its share 14 → 12
 * ms), and a runner that reads a hostile sandbox's output is better without code made from
 * strings. In the bundles zod's global config starts with `jitless: true`: zod reads it as it
 * makes each object schema, so it must be set before any schema is made, which no import of
 * the source could promise. The build fails if zod's core no longer starts its config as
 * expected.
 */
export const zodWithoutEval = {
  name: "zod-without-eval",
  setup(build) {
    build.onLoad(
      { filter: /[\\/]node_modules[\\/]zod[\\/]v4[\\/]core[\\/]core\.js$/ },
      async (args) => {
        const text = await readFile(args.path, "utf8");
        const from = "(_a.__zod_globalConfig = {})";
        if (!text.includes(from)) {
          throw new Error(`zod's core does not start its config with ${from}: see zodWithoutEval`);
        }
        return {
          contents: text.replace(from, "(_a.__zod_globalConfig = { jitless: true })"),
          loader: "js",
        };
      },
    );
  },
};
