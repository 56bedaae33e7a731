// The sandbox checks this data directory keeps between processes: one file per backend, written
// whole (atomically) after a pass, read back only under the same key (the backend's checkKey).
// The file is the user's own (the data directory is 0700); one that is not what warden wrote
// (too large, not JSON, another shape or key) is no pass, and the check is made again.
import { closeSync, constants, fstatSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { CheckPass, CheckPasses } from "../sandbox/index.js";
import { openNoFollowSync, writeFileAtomic } from "../store/index.js";
import { HOST_LIMITS } from "./limits.js";

/** The kept checks' directory in the data directory. */
export function checksDir(dataDir: string): string {
  return join(dataDir, "checks");
}

/** The file's text when it is a regular file of at most HOST_LIMITS.keptCheckBytes. */
function boundedText(path: string): string | undefined {
  const fd = openNoFollowSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > HOST_LIMITS.keptCheckBytes) return undefined;
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** The pass in `text` when it is one kept under `key`. */
function passOf(text: string, key: string): CheckPass | undefined {
  const kept: unknown = JSON.parse(text);
  if (typeof kept !== "object" || kept === null) return undefined;
  const { version, key: keptKey, at, detail } = kept as Record<string, unknown>;
  if (version !== 1 || keptKey !== key) return undefined;
  if (typeof at !== "number" || !Number.isFinite(at) || typeof detail !== "string")
    return undefined;
  return { at, detail };
}

/** The passes kept in `dataDir`. */
export function keptSandboxChecks(dataDir: string): CheckPasses {
  const dir = checksDir(dataDir);
  const file = (name: string): string => join(dir, `${name}.json`);
  return {
    read(name, key) {
      try {
        const text = boundedText(file(name));
        return Promise.resolve(text === undefined ? undefined : passOf(text, key));
      } catch {
        // No file, a link, unreadable or not JSON: no pass.
        return Promise.resolve(undefined);
      }
    },
    async keep(name, key, pass) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(file(name), JSON.stringify({ version: 1, key, ...pass }) + "\n");
    },
  };
}
