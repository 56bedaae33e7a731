// Files the agent hands back with its reply to a message: the runner sends them in pieces over
// the channel before the reply, and the executor writes them to `reply-files/<n>/<name>` in the
// task's directory. They are the sandbox's bytes, so every piece is bounded here: the message
// must be in flight, the name plain, the pieces in order, and the files of one reply at most as
// many and as large as the files a message may bring.
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { cleanLine } from "../protocol/index.js";
import { FILE_MODE, syncDir } from "./atomicFile.js";
import { BadMessageFileError, MessageFilesTooBigError, MessageStateError } from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import type { MessageFile } from "./messageFiles.js";
import { messageFileNameProblem } from "./messageFiles.js";
import { ensureRealDir, isRealDir, openNoFollow } from "./noFollow.js";
import type { TaskPaths } from "./taskDir.js";

/** A piece of a file handed back with the reply to message `n`. */
export interface ReplyFilePiece {
  readonly n: number;
  readonly name: string;
  /** Where the piece starts in the file: exactly the bytes received so far. */
  readonly offset: number;
  readonly data: Uint8Array;
  /** The file is whole after this piece. */
  readonly last: boolean;
}

/** The directory of the files handed back with the reply to message `n`. */
export function replyFilesDir(paths: TaskPaths, n: number): string {
  return join(paths.replyFiles, String(n));
}

/** A file still arriving is kept under a name no whole file can have. */
function partName(name: string): string {
  return `.${name}.part`;
}

async function sizeOf(path: string): Promise<number | undefined> {
  return (await stat(path).catch(() => undefined))?.size;
}

/**
 * Appends one piece. Called under inbox.lock with the inbox as read there, so the message's
 * state cannot change under it.
 */
export async function writeReplyPiece(
  paths: TaskPaths,
  messages: readonly { readonly n: number; readonly state: string }[],
  piece: ReplyFilePiece,
): Promise<void> {
  const message = messages.find((m) => m.n === piece.n);
  if (message?.state !== "in_flight") {
    throw new MessageStateError(
      `message ${piece.n} of task ${paths.id} is not in flight, so no file comes with its reply`,
    );
  }
  const problem = messageFileNameProblem(piece.name);
  if (problem !== undefined) {
    throw new BadMessageFileError(
      `"${cleanLine(piece.name)}" cannot be a handed-back file's name: ${problem}`,
    );
  }
  ensureRealDir(paths.replyFiles);
  const dir = replyFilesDir(paths, piece.n);
  ensureRealDir(dir);
  const entries = await readdir(dir);
  if (entries.includes(piece.name)) {
    throw new BadMessageFileError(`${piece.name} was already handed back with message ${piece.n}`);
  }
  const part = join(dir, partName(piece.name));
  const had = (await sizeOf(part)) ?? 0;
  if (piece.offset !== had) {
    throw new BadMessageFileError(
      `a piece of ${piece.name} starts at byte ${piece.offset}, but ${had} bytes of it have come`,
    );
  }
  const others = entries.filter((entry) => entry !== partName(piece.name));
  if (piece.offset === 0 && others.length >= STORE_LIMITS.messageFiles) {
    throw new MessageFilesTooBigError(
      `a reply hands back at most ${STORE_LIMITS.messageFiles} files`,
    );
  }
  let total = had + piece.data.byteLength;
  for (const entry of others) total += (await sizeOf(join(dir, entry))) ?? 0;
  if (total > STORE_LIMITS.messageFilesBytes) {
    throw new MessageFilesTooBigError(
      `a reply's files may hold at most ${STORE_LIMITS.messageFilesBytes} bytes in all`,
    );
  }
  const handle = await openNoFollow(
    part,
    constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND,
    FILE_MODE,
  );
  try {
    await handle.write(piece.data);
    if (piece.last) await handle.sync();
  } finally {
    await handle.close();
  }
  if (piece.last) {
    await rename(part, join(dir, piece.name));
    await syncDir(dir);
  }
}

/**
 * The whole files handed back with the reply to message `n`, as its record names them; pieces
 * of a file that never came whole are removed. Called under inbox.lock as the reply is recorded.
 */
export async function collectReplyFiles(paths: TaskPaths, n: number): Promise<MessageFile[]> {
  const dir = replyFilesDir(paths, n);
  if (!isRealDir(paths.replyFiles) || !isRealDir(dir)) return [];
  const entries = (await readdir(dir)).sort();
  const files: MessageFile[] = [];
  for (const entry of entries) {
    const path = join(dir, entry);
    if (entry.startsWith(".")) {
      await rm(path, { force: true });
      continue;
    }
    const handle = await openNoFollow(path, constants.O_RDONLY);
    const data = await handle.readFile().finally(() => handle.close());
    files.push({
      name: entry,
      bytes: data.byteLength,
      sha256: createHash("sha256").update(data).digest("hex"),
    });
  }
  return files;
}
