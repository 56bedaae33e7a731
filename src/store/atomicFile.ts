// Whole-file writes that a crash can never leave half done: write a temporary file in the same
// directory, fsync it, rename it over the target, fsync the directory. A reader sees the old
// bytes or the new ones, never a mixture, and after the directory fsync the new name survives
// a power cut.
import { constants } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { damaged, StoreCorruptError } from "./errors.js";
import { openNoFollow, readTextNoFollow } from "./noFollow.js";

/** Points where a test can stop a write, to show what a crash there leaves behind. */
export interface StoreHooks {
  /** Called (synchronously) after the temporary file is durable and before it is renamed. */
  beforeRename?: (target: string) => void;
}

export const FILE_MODE = 0o600;

/** fsync on a directory, so that a rename or create inside it is durable. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Replaces `path` with `bytes` atomically. The temporary name is fixed (`<name>.tmp`), which is
 * safe because every file the store replaces has one writer at a time under a lock; a temporary
 * file left by a writer that died is removed by the next one, which then creates its own
 * exclusively, so a link planted under that name is unlinked, never written through. The rename
 * replaces a link at `path` itself without following it.
 */
export async function writeFileAtomic(
  path: string,
  bytes: string | Uint8Array,
  hooks: StoreHooks = {},
): Promise<void> {
  const temp = `${dirname(path)}/.${basename(path)}.tmp`;
  await unlink(temp).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  });
  const handle = await openNoFollow(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    FILE_MODE,
  );
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  hooks.beforeRename?.(path);
  await rename(temp, path);
  await syncDir(dirname(path));
}

/** Reads and parses a JSON file the store wrote (never through a link); undefined when absent. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readTextNoFollow(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return parseJsonFile(path, text);
}

/** The JSON value of the text of a file of the store's: text that is not JSON is damage. */
export function parseJsonFile(path: string, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new StoreCorruptError(damaged(path, "not JSON"), { cause: error });
  }
}
