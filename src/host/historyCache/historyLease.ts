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
import { mkdir, readdir, rm, utimes } from "node:fs/promises";
import { historyRef } from "../../protocol/index.js";
import { tryFlock, writeFileAtomic } from "../../store/index.js";
import { HistoryCacheError } from "../errors.js";
import { hostGit } from "../hostGit.js";
import { HOST_LIMITS } from "../limits.js";
import { cacheLayout, GENERATION, type CacheLayout } from "./cacheLayout.js";
import { tryLock, waitLock } from "./cacheLock.js";
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
  const update = await waitLock(layout.updateLock, "exclusive", "update");
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
  await hostGit(
    [
      // Every fetch keeps its objects as one pack, so a cache is a few files per base.
      "-c",
      "fetch.unpackLimit=1",
      "fetch",
      "--quiet",
      "--no-tags",
      "--no-write-fetch-head",
      "--",
      source.gitDir,
      `${base}:${historyRef(base)}`,
    ],
    { cwd: repository, env: { ...CLEAN_CONFIG_ENV } },
  );
  await record(layout, { ...state, bases: [...state.bases, base] });
  return state.generation;
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
