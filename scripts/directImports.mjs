// An esbuild plugin for bundles split into chunks: it rewrites each import from a folder's
// index.ts into imports from the files the index re-exports those names from. esbuild places a
// file in the chunks of every entry that reaches it through an import, even one of which nothing
// is used, so without this every verb that takes one name from `../host/index.js` would load all
// of the host (the sandboxes, the egress proxy, and the Node modules they load). The source is
// unchanged: the folders keep their public face, and only the bundle takes the shorter path.
import { readFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";

/** `export { a, b as c } from "./file.js";` in an index; `export type { ... }` is left out. */
const REEXPORT = /export\s+\{([^}]*)\}\s*from\s*"(\.[^"]+)";/g;
/** `export * from "./file.js";` in an index. */
const REEXPORT_ALL = /export\s+\*\s+from\s*"(\.[^"]+)";/g;
/**
 * `import { a, type B, c as d } from "../folder/index.js";` in any file of src/, or the same
 * with `export` (a file that passes a name of another folder's on).
 */
const INDEX_IMPORT = /(import|export)\s+\{([^}]*)\}\s*from\s*"(\.[^"]*\/index\.js)";/g;

/** The file a relative `.js` specifier in `fromFile` names: its `.ts` source. */
function sourceOf(fromFile, specifier) {
  return resolve(dirname(fromFile), specifier).replace(/\.js$/, ".ts");
}

/** The names of one `{ ... }` list, each with the name it has in the list's source file. */
function namesOf(list) {
  return list
    .split(",")
    .map((word) => word.trim())
    .filter((word) => word !== "" && !word.startsWith("type "))
    .map((word) => {
      const [own, as = own] = word.split(/\s+as\s+/);
      return { own, as };
    });
}

/** Whether `file` declares and exports `name` itself (`export class Name`, and the like). */
async function declares(file, name) {
  const text = await readFile(file, "utf8");
  return new RegExp(
    `export\\s+(abstract\\s+)?(class|function|async\\s+function|const|let)\\s+${name}\\b`,
  ).test(text);
}

/**
 * Reads an index's re-exports: exported name to the file and name it comes from, and the files
 * it re-exports whole (`export *`).
 */
async function reexportsOf(indexFile, cache) {
  let found = cache.get(indexFile);
  if (found === undefined) {
    found = { names: new Map(), whole: [] };
    const text = await readFile(indexFile, "utf8");
    for (const [, list, specifier] of text.matchAll(REEXPORT)) {
      const file = sourceOf(indexFile, specifier);
      for (const { own, as } of namesOf(list)) found.names.set(as, { file, name: own });
    }
    for (const [, specifier] of text.matchAll(REEXPORT_ALL)) {
      found.whole.push(sourceOf(indexFile, specifier));
    }
    cache.set(indexFile, found);
  }
  return found;
}

/** Where `name` of `indexFile` is defined, following an index that re-exports another index. */
async function originOf(indexFile, name, cache) {
  const { names, whole } = await reexportsOf(indexFile, cache);
  let origin = names.get(name);
  for (const file of whole) {
    if (origin === undefined && (await declares(file, name))) origin = { file, name };
  }
  if (origin === undefined) return undefined;
  if (!origin.file.endsWith("/index.ts")) return origin;
  return (await originOf(origin.file, origin.name, cache)) ?? origin;
}

/** The specifier of `targetFile` from `fromFile`, as the source writes it. */
function specifierOf(fromFile, targetFile) {
  const path = relative(dirname(fromFile), targetFile).replace(/\.ts$/, ".js");
  return path.startsWith(".") ? path : `./${path}`;
}

/** What replaces one import (or export) from an index: one per file the names come from. */
async function directImports(file, keyword, list, specifier, cache) {
  const indexFile = sourceOf(file, specifier);
  const byFile = new Map();
  for (const { own, as } of namesOf(list)) {
    const origin = await originOf(indexFile, own, cache);
    const target = origin === undefined ? indexFile : origin.file;
    const name = origin === undefined ? own : origin.name;
    const names = byFile.get(target) ?? [];
    names.push(name === as ? name : `${name} as ${as}`);
    byFile.set(target, names);
  }
  // A list of types alone becomes no import at all, as it would in the emitted JavaScript.
  return [...byFile]
    .map(([target, names]) => {
      return `${keyword} { ${names.join(", ")} } from "${specifierOf(file, target)}";`;
    })
    .join("\n");
}

/**
 * The plugin, for the TypeScript files under `srcDir`. Each of `rewrites` (text to text) is
 * applied to a file's source first: esbuild takes the source of a file from one plugin alone.
 */
export function directImportsPlugin(srcDir, rewrites = []) {
  return {
    name: "direct-imports",
    setup(build) {
      const cache = new Map();
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(srcDir + "/")) return undefined;
        let text = await readFile(args.path, "utf8");
        for (const rewrite of rewrites) text = rewrite(text);
        const parts = [];
        let last = 0;
        for (const match of text.matchAll(INDEX_IMPORT)) {
          const [whole, keyword, list, specifier] = match;
          parts.push(text.slice(last, match.index));
          parts.push(await directImports(args.path, keyword, list, specifier, cache));
          last = match.index + whole.length;
        }
        parts.push(text.slice(last));
        return { contents: parts.join(""), loader: "ts" };
      });
    },
  };
}
