// Bundles the runner into one file, dist/guest/warden-guest.mjs: every sandbox starts the
// runner, and Node takes about 110 ms less to load one file than the hundred-odd modules tsc
// emits (measured with `node dist/guest/...  --help`: 0.25 s against 0.14 s). Run after tsc,
// from `npm run build`.
import { build } from "esbuild";
import { URL, fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

await build({
  absWorkingDir: root,
  entryPoints: ["dist/guest/main.js"],
  outfile: "dist/guest/warden-guest.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // The CommonJS packages inside (tar-stream and its own) call require() for Node's modules,
  // which an ES module has only when it makes one.
  banner: {
    js: "import { createRequire as wardenCreateRequire } from 'node:module'; const require = wardenCreateRequire(import.meta.url);",
  },
  logLevel: "warning",
});
