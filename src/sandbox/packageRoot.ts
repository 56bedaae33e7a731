// Finds warden's own package on disk, so a sandbox can see its runner and its dependencies.
import { existsSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The directory of the package.json named `warden` at or above this module (src/sandbox under
 * tsx, dist/sandbox when built), or null when there is none.
 */
export function findPackageRoot(fromUrl: string = import.meta.url): string | null {
  let dir = dirname(fileURLToPath(fromUrl));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown };
        if (parsed.name === "warden") return dir;
      } catch {
        // A package.json that does not parse is not warden's; keep looking above it.
      }
    }
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/**
 * The paths a sandbox binds read-only so that Node can run warden's runner: the manifest (for
 * `"type": "module"`), dist, node_modules, and, when warden is itself installed as a dependency,
 * the node_modules directory it sits in, where its own dependencies were hoisted.
 */
export function packageFiles(root: string): string[] {
  const files = ["package.json", "dist", "node_modules"]
    .map((name) => join(root, name))
    .filter((path) => existsSync(path));
  const parent = dirname(root);
  if (basename(parent) === "node_modules") files.push(parent);
  return files;
}
