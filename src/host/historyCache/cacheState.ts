// The record of a history cache as the host left it, and the fingerprints that show whether its
// files are still exactly those. A fingerprint is a file's type, mode, size, inode and its
// modification and change times in nanoseconds: nothing but the kernel sets a change time, so
// any write, rename, chmod or replacement of a cache file after the host recorded it shows.
import { constants, type BigIntStats } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { memo } from "../../lang/index.js";
import { HOST_LIMITS } from "../limits.js";
import { GENERATION } from "./cacheLayout.js";

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export const cacheStateSchema = memo(() =>
  z
    .object({
      version: z.literal(1),
      /** The repository the cache's objects came from. */
      gitDir: z.string().min(1),
      objectFormat: z.enum(["sha1", "sha256"]),
      /** The generation's directory, inside the cache's. */
      generation: z.string().regex(GENERATION),
      /** Every base the generation holds under its tag. */
      bases: z.array(z.string().regex(OID)),
      /** Path inside the generation → fingerprint, for every file and directory in it. */
      files: z.record(z.string(), z.string()),
    })
    .strict(),
);

export type CacheState = z.infer<ReturnType<typeof cacheStateSchema>>;

/** The state file, or undefined when it is missing or not one the host wrote. */
export async function readCacheState(path: string): Promise<CacheState | undefined> {
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const text = await handle.readFile("utf8").finally(() => handle.close());
    const parsed = cacheStateSchema().safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The fingerprints of everything under `root`, or undefined when it holds more entries than a
 * cache warden made ever does. Links are fingerprinted, never followed.
 */
export async function fingerprintTree(root: string): Promise<Record<string, string> | undefined> {
  const files: Record<string, string> = { ".": fingerprint(await lstat(root, { bigint: true })) };
  let count = 0;
  const pending = [""];
  for (let rel = pending.pop(); rel !== undefined; rel = pending.pop()) {
    const entries = await readdir(join(root, rel), { withFileTypes: true });
    for (const entry of entries) {
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (++count > HOST_LIMITS.historyCacheEntries) return undefined;
      const info = await lstat(join(root, path), { bigint: true });
      files[path] = fingerprint(info);
      if (entry.isDirectory()) pending.push(path);
    }
  }
  return files;
}

function fingerprint(info: BigIntStats): string {
  return [info.mode.toString(8), info.size, info.ino, info.mtimeNs, info.ctimeNs].join(":");
}

/** True when `now` lists exactly the entries of `recorded`, each with the same fingerprint. */
export function sameFiles(recorded: Record<string, string>, now: Record<string, string>): boolean {
  const names = Object.keys(recorded);
  if (names.length !== Object.keys(now).length) return false;
  return names.every((name) => Object.hasOwn(now, name) && now[name] === recorded[name]);
}
