// A task's directory holds warden's own files, but a process (hostile, or a confused user) may
// plant a symbolic link where warden keeps one: results → /etc, events.jsonl → /etc/passwd.
// warden never follows such a link, to write, to read or to remove: files are opened with
// O_NOFOLLOW, and a directory warden works inside is checked with lstat first. Linux only.
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
} from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { damaged, PlantedLinkError, plantedLink, StoreCorruptError } from "./errors.js";

/** Added to the flags of every open: the kernel refuses a link as the path's last part (ELOOP). */
export const NO_FOLLOW = constants.O_NOFOLLOW;

/** An open that O_NOFOLLOW refused becomes the store's error; any other error stays as it was. */
export function linkRefusal(error: unknown, path: string): unknown {
  return (error as NodeJS.ErrnoException).code === "ELOOP"
    ? new PlantedLinkError(plantedLink(path), { cause: error })
    : error;
}

/** openSync(2) of a file that is never a link. */
export function openNoFollowSync(path: string, flags: number, mode?: number): number {
  try {
    return openSync(path, flags | NO_FOLLOW, mode);
  } catch (error) {
    throw linkRefusal(error, path);
  }
}

/** open(2) of a file that is never a link. */
export async function openNoFollow(
  path: string,
  flags: number,
  mode?: number,
): Promise<FileHandle> {
  try {
    return await open(path, flags | NO_FOLLOW, mode);
  } catch (error) {
    throw linkRefusal(error, path);
  }
}

/**
 * A whole record of the store's as UTF-8, never read through a link. A missing file throws ENOENT
 * as usual. The records are small (the store's limits bound them), and a read with blocking calls
 * takes a fraction of the four trips to Node's thread pool that an open, a stat, a read and a
 * close take there (two reads of a task's details: 2.5 ms so, 0.5 ms this way), so it reads
 * synchronously behind the promise its callers await.
 */
export function readTextNoFollow(path: string): Promise<string> {
  // What the executor throws rejects the promise.
  return new Promise((resolve) => {
    resolve(readTextNoFollowSync(path));
  });
}

/**
 * readTextNoFollow without a promise. The open does not wait (O_NONBLOCK), so a named pipe or a
 * device planted where a record belongs is refused rather than read from until a writer comes.
 */
export function readTextNoFollowSync(path: string): string {
  const fd = openNoFollowSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd).isFile()) throw new StoreCorruptError(damaged(path, "not a regular file"));
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** Refuses a link at `path`; anything else there, or nothing, is left to the caller. */
export function refuseLink(path: string): void {
  let isLink: boolean;
  try {
    isLink = lstatSync(path).isSymbolicLink();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return;
    throw error;
  }
  if (isLink) throw new PlantedLinkError(plantedLink(path));
}

/**
 * Whether a real directory is at `path` (false when nothing is): a link in its place is refused
 * (PLANTED_LINK), and so is a file (STORE_CORRUPT). Checked before warden reads, writes or
 * removes anything inside it, since O_NOFOLLOW guards only the last part of a path.
 */
export function isRealDir(path: string): boolean {
  let stats;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw error;
  }
  if (stats.isSymbolicLink()) throw new PlantedLinkError(plantedLink(path));
  if (!stats.isDirectory()) throw new StoreCorruptError(damaged(path, "it is not a directory"));
  return true;
}

/** Makes a directory 0700 where none is; a link or a file in its place is refused. */
export function ensureRealDir(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  if (!isRealDir(path)) throw new StoreCorruptError(damaged(path, "it vanished as it was made"));
}
