// An esbuild plugin for the `warden` bundle: a few of Node's own modules cost milliseconds to
// load (node:crypto loads every cipher and the web crypto API; node:child_process loads net,
// dgram and the streams; node:tty loads net), though most commands never call them. Bundled
// code that imports one of them gets a stand-in instead, whose functions load the real module
// on their first call. A command that never calls them never loads them; one that does gets the
// very same functions.

/**
 * Each stand-in: the module, the functions it offers (an import of any other name fails the
 * build, so nothing is silently missing), and the files whose imports get it. Only plain
 * functions are offered: a class would fail `instanceof`, and execFile carries a
 * util.promisify.custom of its own that a wrapper would lose.
 */
const STAND_INS = [
  {
    module: "node:crypto",
    functions: ["randomBytes", "createHash", "timingSafeEqual"],
    forImporter: (path, src) => path.startsWith(src + "/"),
  },
  {
    // node:tty loads node:net; the command asks isatty() only of a descriptor that is a character
    // device (src/cli/standardStreams.ts), so a pipe or a file never loads it.
    module: "node:tty",
    functions: ["isatty"],
    forImporter: (path, src) => path.startsWith(src + "/"),
  },
  {
    // commander spawns a child only for a verb that is a program of its own; warden has none.
    module: "node:child_process",
    functions: ["spawn"],
    forImporter: (path) => path.includes("/node_modules/commander/"),
  },
];

const NAMESPACE = "lazy-builtin";

/**
 * The stand-in's source: each function loads the module on its call and hands the call on. The
 * bundles are CommonJS, where require() of a module of Node's own stays a call at run time.
 */
function standInSource({ module, functions }) {
  const load = `require(${JSON.stringify(module)})`;
  const wrappers = functions.map(
    (name) => `function ${name}(...args) { return ${load}.${name}(...args); }`,
  );
  return [...wrappers, `module.exports = { ${functions.join(", ")} };`].join("\n");
}

/** The plugin, for the TypeScript files under `srcDir` and the packages named above. */
export function lazyBuiltinsPlugin(srcDir) {
  return {
    name: "lazy-builtins",
    setup(build) {
      for (const standIn of STAND_INS) {
        const filter = new RegExp(`^${standIn.module}$`);
        build.onResolve({ filter }, (args) =>
          args.namespace !== NAMESPACE && standIn.forImporter(args.importer, srcDir)
            ? { path: standIn.module, namespace: NAMESPACE }
            : undefined,
        );
      }
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const standIn = STAND_INS.find((candidate) => candidate.module === args.path);
        return { contents: standInSource(standIn), loader: "js", resolveDir: srcDir };
      });
    },
  };
}
