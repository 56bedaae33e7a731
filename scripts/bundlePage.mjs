// Builds the dashboard's page (src/web/page/) into dist/web/page/: one script bundled by
// esbuild for the browsers of today, the page's HTML and style copied as they are. The server
// serves these files; nothing is fetched from anywhere else. Run after tsc, from `npm run build`.
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { URL, fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const source = join(root, "src", "web", "page");
const out = join(root, "dist", "web", "page");
await mkdir(out, { recursive: true });
await build({
  absWorkingDir: root,
  entryPoints: [join(source, "app.ts")],
  outfile: join(out, "app.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  logLevel: "warning",
});
for (const name of ["index.html", "app.css"]) await copyFile(join(source, name), join(out, name));
