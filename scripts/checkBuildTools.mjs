// Run by `npm run prepare` (so by `npm ci`, `npm pack`, `npm link` and `npm install -g .`)
// before the build. npm links a global install from a folder without installing that folder's
// dependencies, so in a fresh clone the build's own tools are missing; this says what to do in
// place of the shell's `tsc: not found`.
import { createRequire } from "node:module";
import process from "node:process";

const require = createRequire(import.meta.url);
const tools = ["typescript", "esbuild"];
const missing = tools.filter((name) => {
  try {
    require.resolve(`${name}/package.json`);
    return false;
  } catch {
    return true;
  }
});
if (missing.length > 0) {
  process.stderr.write(
    `warden: building needs ${missing.join(" and ")}, which are not installed here\n` +
      "hint: run `npm ci` in this clone first, then `npm install -g .` (or `npm link`)\n",
  );
  process.exit(1);
}
