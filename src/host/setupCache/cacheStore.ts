// The host's store of setup snapshots: one directory per key under the data directory's
// setup-cache/, holding snapshot.tar and entry.json (its digest, size and when it was made). An
// entry is written whole in a temporary directory and renamed into place, so a reader sees a
// whole entry or none, and two tasks storing the same key at once leave one of theirs. An entry
// is checked against its digest each time it is used: a damaged or changed one is removed, and
// the task runs its setup as if there had been none.
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import {
  copyFile,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  stat,
  utimes,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { memo } from "../../lang/index.js";
import { SETUP_CACHE_LIMITS } from "./limits.js";

/** The data directory's folder of setup snapshots. */
export const SETUP_CACHE_DIR = "setup-cache";
const SNAPSHOT_FILE = "snapshot.tar";
const ENTRY_FILE = "entry.json";
const TEMPORARY_PREFIX = ".tmp-";
const KEY = /^[0-9a-f]{64}$/;

const entrySchema = memo(() =>
  z
    .object({
      version: z.literal(1),
      key: z.string().regex(KEY),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      bytes: z.number().int().min(0),
      createdAt: z.string().max(64),
    })
    .strict(),
);

export type CacheEntry = z.infer<ReturnType<typeof entrySchema>>;

function entryDir(dataDir: string, key: string): string {
  if (!KEY.test(key)) throw new Error("a setup cache key is 64 hex digits");
  return join(dataDir, SETUP_CACHE_DIR, key);
}

/** The sha256 of a file, read as a stream. */
export async function fileDigest(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    for await (const chunk of handle.createReadStream({
      autoClose: false,
    }) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  } finally {
    await handle.close();
  }
  return { sha256: hash.digest("hex"), bytes };
}

async function readEntry(dir: string): Promise<CacheEntry | undefined> {
  let handle;
  try {
    handle = await open(join(dir, ENTRY_FILE), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(SETUP_CACHE_LIMITS.entryBytes + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > SETUP_CACHE_LIMITS.entryBytes) return undefined;
    const parsed = entrySchema().safeParse(
      JSON.parse(buffer.subarray(0, bytesRead).toString("utf8")),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

export type CacheLookup =
  | { readonly kind: "hit"; readonly entry: CacheEntry }
  | { readonly kind: "miss" }
  /** There was an entry, and it was damaged or changed: it is gone now. */
  | { readonly kind: "evicted"; readonly why: string };

/**
 * Copies the entry of `key` to `dest` and checks the copy against the entry's digest. A missing
 * entry is a miss; a damaged one is removed and reported as evicted, with `dest` removed too.
 */
export async function takeSnapshot(
  dataDir: string,
  key: string,
  dest: string,
): Promise<CacheLookup> {
  const dir = entryDir(dataDir, key);
  const present = await stat(dir).then(
    () => true,
    () => false,
  );
  if (!present) return { kind: "miss" };
  const evict = async (why: string): Promise<CacheLookup> => {
    await rm(dest, { force: true });
    await evictEntry(dataDir, key);
    return { kind: "evicted", why };
  };
  const entry = await readEntry(dir);
  if (entry === undefined || entry.key !== key)
    return evict("its entry.json is missing or damaged");
  try {
    await copyFile(join(dir, SNAPSHOT_FILE), dest, constants.COPYFILE_FICLONE);
  } catch {
    // Removed meanwhile (gc), or unreadable: either way there is nothing to start from.
    return evict("its snapshot could not be read");
  }
  const copied = await fileDigest(dest);
  if (copied.bytes !== entry.bytes || copied.sha256 !== entry.sha256) {
    return evict("its snapshot does not match its digest");
  }
  const now = new Date();
  await utimes(dir, now, now).catch(() => undefined);
  return { kind: "hit", entry };
}

/**
 * Stores the snapshot at `tarPath` (moved, not copied: it must be on the data directory's
 * filesystem) as the entry of `key`, unless one is there already. Returns whether it was kept.
 */
export async function storeSnapshot(
  dataDir: string,
  key: string,
  tarPath: string,
  digest: { sha256: string; bytes: number },
): Promise<boolean> {
  const root = join(dataDir, SETUP_CACHE_DIR);
  await mkdir(root, { recursive: true, mode: 0o700 });
  const temporary = join(root, `${TEMPORARY_PREFIX}${randomBytes(8).toString("hex")}`);
  await mkdir(temporary, { mode: 0o700 });
  try {
    await rename(tarPath, join(temporary, SNAPSHOT_FILE));
    const entry: CacheEntry = {
      version: 1,
      key,
      sha256: digest.sha256,
      bytes: digest.bytes,
      createdAt: new Date().toISOString(),
    };
    await writeFile(join(temporary, ENTRY_FILE), JSON.stringify(entry) + "\n", {
      mode: 0o600,
      flag: "wx",
      flush: true,
    });
    try {
      await rename(temporary, entryDir(dataDir, key));
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another task stored the same key first: its entry stands, this one is dropped.
      if (code === "ENOTEMPTY" || code === "EEXIST") return false;
      throw error;
    }
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}

/** Removes the entry of `key`, renamed aside first so no reader sees half of it. */
export async function evictEntry(dataDir: string, key: string): Promise<void> {
  const root = join(dataDir, SETUP_CACHE_DIR);
  const aside = join(root, `${TEMPORARY_PREFIX}${randomBytes(8).toString("hex")}`);
  try {
    await rename(entryDir(dataDir, key), aside);
  } catch {
    return;
  }
  await rm(aside, { recursive: true, force: true });
}

export interface SetupTrimOutcome {
  /** The entries removed, as their keys. */
  removed: string[];
}

/**
 * `warden gc` for setup snapshots: removes each entry no task has used for `olderThan` (its
 * directory's time is set at each use), and temporary directories a dead host left.
 */
export async function trimSetupCaches(
  dataDir: string,
  options: { olderThan: number; now: number },
): Promise<SetupTrimOutcome> {
  const root = join(dataDir, SETUP_CACHE_DIR);
  const names = await readdir(root).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  });
  const outcome: SetupTrimOutcome = { removed: [] };
  for (const name of names) {
    const path = join(root, name);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) continue;
    const age = options.now - info.mtimeMs;
    if (name.startsWith(TEMPORARY_PREFIX)) {
      if (age >= SETUP_CACHE_LIMITS.staleTemporaryMs)
        await rm(path, { recursive: true, force: true });
      continue;
    }
    if (KEY.test(name) && age >= options.olderThan) {
      await evictEntry(dataDir, name);
      outcome.removed.push(name);
    }
  }
  return outcome;
}
