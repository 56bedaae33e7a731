// The effect of an agent's SessionFileSearch: the path of the session file it names, when there
// is one. A search looks at regular files only (never through a link) and at most a bounded
// number of entries, and takes the most recently written match (the larger on a tie): an agent
// that resumes a session may leave a fresh file of the same name beside the one it goes on with.
import { existsSync } from "node:fs";
import { lstat, opendir } from "node:fs/promises";
import { join } from "node:path";
import type { SessionFileSearch } from "../agents/index.js";
import { GUEST_CHECKPOINT_LIMITS } from "./limits.js";

interface Found {
  readonly path: string;
  readonly mtimeMs: number;
  readonly size: number;
}

/** The file the search names, or undefined when there is none (or too much to look through). */
export async function findSessionFile(search: SessionFileSearch): Promise<string | undefined> {
  if (search.kind === "path") return existsSync(search.path) ? search.path : undefined;
  const budget: { entries: number } = { entries: GUEST_CHECKPOINT_LIMITS.sessionSearchEntries };
  let best: Found | undefined;
  const visit = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await opendir(dir);
    } catch {
      return;
    }
    for await (const entry of entries) {
      if (--budget.entries < 0) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth > 0 && budget.entries >= 0) await visit(path, depth - 1);
        continue;
      }
      const { prefix, suffix } = search;
      if (!entry.isFile() || !entry.name.startsWith(prefix) || !entry.name.endsWith(suffix)) {
        continue;
      }
      const stat = await lstat(path).catch(() => undefined);
      if (stat === undefined || !stat.isFile()) continue;
      const found = { path, mtimeMs: stat.mtimeMs, size: stat.size };
      if (best === undefined || newer(found, best)) best = found;
    }
  };
  await visit(search.dir, search.depth);
  return budget.entries < 0 ? undefined : best?.path;
}

function newer(a: Found, b: Found): boolean {
  return a.mtimeMs !== b.mtimeMs ? a.mtimeMs > b.mtimeMs : a.size > b.size;
}
