// A task's lease on its repository's history cache: the bare repository, in warden's data
// directory, that holds what is reachable from the bases warden has sent and nothing of the
// user's other refs. The sandbox gets it read-only and its clone borrows the objects (git
// alternates), so a task's start does not grow with the history, and only the first task on a
// repository (or on a base far from the cached ones) copies history, incrementally.
//
// Invariants:
// - Only the host writes a cache, under its update lock, and state.json (written atomically,
//   last) is the mark of a complete update: it names the generation, its bases and the
//   fingerprint of every file in it. A cache whose files are not exactly those (a crash in the
//   middle of an update, or a change by anyone else) is never used or added to: a new
//   generation is filled from the user's repository instead.
// - A generation is removed only while nobody holds the use lock, which every task holds from
//   its share until its sandbox is gone; so no running sandbox ever loses an object.
// - The host never trusts the cache for a check: the changes bundle is checked against the
//   user's own repository, as without a cache. The cache only decides what the sandbox reads.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, rm, utimes } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { historyRef } from "../../protocol/index.js";
import { tryFlock, writeFileAtomic } from "../../store/index.js";
import { HistoryCacheError } from "../errors.js";
import { hostGit, type GitOutput } from "../hostGit.js";
import { HOST_LIMITS } from "../limits.js";
import { cacheLayout, GENERATION, type CacheLayout } from "./cacheLayout.js";
import { pollLock, tryLock, waitLock, type HeldLock } from "./cacheLock.js";
import { fingerprintTree, readCacheState, sameFiles, type CacheState } from "./cacheState.js";

export interface HistorySource {
  /** The user's git directory (absolute). */
  gitDir: string;
  objectFormat: "sha1" | "sha256";
}

export interface HistoryLease {
  /** The bare repository that holds the base under historyRef(base); bind it read-only. */
  readonly repository: string;
  /** Drops the use lock: the sandbox no longer reads the repository. */
  release(): void;
}

/**
 * The environment of git in the cache: no system or global config of the user's, so nothing
 * (an `insteadOf` that rewrites the source's path, a fetch setting) changes what is copied.
 */
const CLEAN_CONFIG_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/**
 * Makes sure the cache of `source` holds `base`, and returns it leased: the use lock is held,
 * shared, until `release`.
 */
export async function leaseHistory(
  dataDir: string,
  source: HistorySource,
  base: string,
): Promise<HistoryLease> {
  const layout = cacheLayout(dataDir, source.gitDir);
  await mkdir(layout.dir, { recursive: true, mode: 0o700 });
  // A task that finds the cache busy (another filling it, the use lock exclusive) tries both
  // ways again at each poll: once the base is in, every waiter leases it at once, side by side,
  // instead of taking the update lock one after the other.
  return pollLock(layout.updateLock, "update", async () => {
    const held = await leaseHeldBase(layout, source, base);
    if (held !== undefined) return held;
    const update = tryLock(layout.updateLock, "exclusive");
    return update === undefined ? undefined : leaseUpdated(layout, source, base, update);
  });
}

/**
 * The lease of a cache that already holds `base`, taken without the update lock, so that tasks
 * on one repository started together do not queue on it. The shared use lock keeps every
 * generation in place (only a holder of it exclusive removes one), and an update only adds
 * files to a generation, so a trusted state that names the base stays true of its generation
 * for as long as the lease is held. Undefined when the base must be added, the cache mended or
 * the use lock is held exclusive: then the caller takes the update lock.
 */
async function leaseHeldBase(
  layout: CacheLayout,
  source: HistorySource,
  base: string,
): Promise<HistoryLease | undefined> {
  const use = tryLock(layout.useLock, "shared");
  if (use === undefined) return undefined;
  try {
    const state = await trustedState(layout, source);
    if (state === undefined || !state.bases.includes(base)) {
      use.close();
      return undefined;
    }
    await markUsed(layout);
    return {
      repository: layout.generation(state.generation),
      release: () => {
        use.close();
      },
    };
  } catch (error) {
    use.close();
    throw error;
  }
}

/**
 * The lease under the update lock, which the caller took and this lets go of: the base added,
 * or the cache rebuilt, as needed.
 */
async function leaseUpdated(
  layout: CacheLayout,
  source: HistorySource,
  base: string,
  update: HeldLock,
): Promise<HistoryLease> {
  try {
    // Exclusive when nobody else uses the cache: then the generations that are not the current
    // one (left by a rebuild or a crash) can go once this one is settled.
    const alone = tryLock(layout.useLock, "exclusive");
    const use = alone ?? (await waitLock(layout.useLock, "shared", "use"));
    try {
      const generation = await holdBase(layout, source, base);
      if (alone !== undefined) {
        await removeStaleGenerations(layout);
        // The update lock is held, so nobody (`warden gc` included) can take the use lock
        // exclusively between this conversion's release and its grant.
        if (!tryFlock(alone.fd, "shared")) {
          throw new HistoryCacheError("could not turn the history cache's use lock shared");
        }
      }
      await markUsed(layout);
      return {
        repository: layout.generation(generation),
        release: () => {
          use.close();
        },
      };
    } catch (error) {
      use.close();
      throw error;
    }
  } finally {
    update.close();
  }
}

async function markUsed(layout: CacheLayout): Promise<void> {
  const now = new Date();
  await utimes(layout.useLock, now, now);
}

/** Removes every generation but the one state.json names. Call only with the use lock exclusive. */
export async function removeStaleGenerations(layout: CacheLayout): Promise<void> {
  const current = (await readCacheState(layout.state))?.generation;
  for (const name of await readdir(layout.dir)) {
    if (GENERATION.test(name) && name !== current) {
      await rm(layout.generation(name), { recursive: true, force: true });
    }
  }
}

/** The generation that holds `base` once this returns; fills or starts one as needed. */
async function holdBase(layout: CacheLayout, source: HistorySource, base: string): Promise<string> {
  const state = (await trustedState(layout, source)) ?? (await newGeneration(layout, source));
  if (state.bases.includes(base)) return state.generation;
  const repository = layout.generation(state.generation);
  await packHistory(source, repository, base, state.bases);
  await hostGit(["update-ref", historyRef(base), base], {
    cwd: repository,
    env: { ...CLEAN_CONFIG_ENV },
  });
  await record(layout, { ...state, bases: [...state.bases, base] });
  return state.generation;
}

/**
 * Writes one pack of what is reachable from `base` and not from the bases the generation holds
 * already, straight into the generation's pack directory. The user's git writes the pack and its
 * index together from objects it already knows, reusing their compressed bytes, so nothing is
 * inflated and hashed again as a fetch's index-pack would: the first task on a large repository
 * pays about a copy of its history, not twice that. A pack without --thin is complete in itself.
 * A base the user's repository no longer has cannot be left out by name, so then the whole
 * history of `base` is packed again: objects twice, never an object missing.
 */
async function packHistory(
  source: HistorySource,
  repository: string,
  base: string,
  held: readonly string[],
): Promise<void> {
  const packDir = join(repository, "objects", "pack");
  const pack = (exclude: readonly string[]): Promise<GitOutput> =>
    hostGit(["pack-objects", "--revs", "--quiet", join(packDir, "pack")], {
      cwd: source.gitDir,
      env: { ...CLEAN_CONFIG_ENV },
      stdin: Readable.from([[base, ...exclude.map((held) => `^${held}`)].join("\n") + "\n"]),
    });
  let written: GitOutput;
  try {
    written = await pack(held);
  } catch (error) {
    if (held.length === 0) throw error;
    written = await pack([]);
  }
  // The user's umask made the files; the sandbox, a uid of its own, must be able to read them.
  const name = written.stdout.trim();
  if (!/^[0-9a-f]{40,64}$/.test(name)) {
    throw new HistoryCacheError("git pack-objects did not name the pack it wrote");
  }
  for (const file of await readdir(packDir)) {
    if (file.startsWith(`pack-${name}.`)) await chmod(join(packDir, file), 0o444);
  }
}

/**
 * The state of the cache when it is one the host completed for this repository and its files
 * are exactly those recorded; undefined otherwise.
 */
async function trustedState(
  layout: CacheLayout,
  source: HistorySource,
): Promise<CacheState | undefined> {
  const state = await readCacheState(layout.state);
  if (
    state === undefined ||
    state.gitDir !== source.gitDir ||
    state.objectFormat !== source.objectFormat
  ) {
    return undefined;
  }
  // Each base the record claims must have been a tag when the files were recorded.
  if (!state.bases.every((base) => Object.hasOwn(state.files, historyRef(base)))) return undefined;
  const files = await fingerprintTree(layout.generation(state.generation)).catch(() => undefined);
  return files !== undefined && sameFiles(state.files, files) ? state : undefined;
}

/**
 * Starts an empty generation, recorded at once so that it is the current one. Its files are
 * readable by every user (the sandbox may run as a uid of its own); the cache's directory
 * (0700) keeps other users of the host out.
 */
async function newGeneration(layout: CacheLayout, source: HistorySource): Promise<CacheState> {
  const generation = `gen-${randomBytes(8).toString("hex")}`;
  await hostGit(
    [
      "init",
      "--quiet",
      "--bare",
      "--template=",
      "--shared=0644",
      `--object-format=${source.objectFormat}`,
      layout.generation(generation),
    ],
    { cwd: layout.dir, env: { ...CLEAN_CONFIG_ENV } },
  );
  const state: CacheState = {
    version: 1,
    gitDir: source.gitDir,
    objectFormat: source.objectFormat,
    generation,
    bases: [],
    files: {},
  };
  return record(layout, state);
}

/** Fingerprints the generation as it is now and writes state.json: the update is complete. */
async function record(layout: CacheLayout, state: CacheState): Promise<CacheState> {
  const files = await fingerprintTree(layout.generation(state.generation));
  if (files === undefined) {
    throw new HistoryCacheError(
      `the history cache ${layout.dir} holds more than ${HOST_LIMITS.historyCacheEntries} files`,
    );
  }
  const recorded = { ...state, files };
  await writeFileAtomic(layout.state, JSON.stringify(recorded) + "\n");
  return recorded;
}
