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
/**
 * `const { a, b: c } = await import("../folder/index.js");`: a module that a verb needs only now
 * and then (the fleet's client) is imported where it is used, and the bundle would run the whole
 * folder there.
 */
const INDEX_LOAD = /const\s+\{([^}]*)\}\s*=\s*await\s+import\("(\.[^"]*\/index\.js)"\);/g;

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

/**
 * The files that `names` (each with the name it takes where it is imported) of the index that
 * `specifier` names come from, each with the names it gives, as `own` and `as`.
 */
async function originsOf(file, specifier, names, cache) {
  const indexFile = sourceOf(file, specifier);
  const byFile = new Map();
  for (const { own, as } of names) {
    const origin = await originOf(indexFile, own, cache);
    const target = origin === undefined ? indexFile : origin.file;
    const list = byFile.get(target) ?? [];
    list.push({ own: origin === undefined ? own : origin.name, as });
    byFile.set(target, list);
  }
  return byFile;
}

/** What replaces one import (or export) from an index: one per file the names come from. */
async function directImports(file, keyword, list, specifier, cache) {
  const byFile = await originsOf(file, specifier, namesOf(list), cache);
  // A list of types alone becomes no import at all, as it would in the emitted JavaScript.
  return [...byFile]
    .map(([target, names]) => {
      const shown = names.map(({ own, as }) => (own === as ? own : `${own} as ${as}`));
      return `${keyword} { ${shown.join(", ")} } from "${specifierOf(file, target)}";`;
    })
    .join("\n");
}

/** What replaces one `await import()` of an index: one per file the names come from. */
async function directLoads(file, pattern, specifier, cache) {
  const names = pattern
    .split(",")
    .map((word) => word.trim())
    .filter((word) => word !== "")
    .map((word) => {
      const [own, as = own] = word.split(/\s*:\s*/);
      return { own, as };
    });
  const byFile = await originsOf(file, specifier, names, cache);
  return [...byFile]
    .map(([target, names]) => {
      const shown = names.map(({ own, as }) => (own === as ? own : `${own}: ${as}`));
      return `const { ${shown.join(", ")} } = await import("${specifierOf(file, target)}");`;
    })
    .join("\n");
}

/** `text` with each match of `pattern` replaced by what `replace` makes of its groups. */
async function replaceAll(text, pattern, replace) {
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    parts.push(text.slice(last, match.index));
    parts.push(await replace(...match.slice(1)));
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts.join("");
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
        text = await replaceAll(text, INDEX_IMPORT, (keyword, list, specifier) =>
          directImports(args.path, keyword, list, specifier, cache),
        );
        text = await replaceAll(text, INDEX_LOAD, (pattern, specifier) =>
          directLoads(args.path, pattern, specifier, cache),
        );
        return { contents: text, loader: "ts" };
      });
    },
  };
}
