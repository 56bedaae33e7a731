// Files sent with a message (`warden send --file`). They are kept in the task's directory,
// `message-files/<n>/<name>`, beside the inbox record that names them; the record holds each
// file's size and SHA-256, so a file changed or swapped after it was sent is refused when it is
// delivered, never handed to the agent.
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { cleanLine, MESSAGE_FILE_NAME } from "../protocol/index.js";
import { FILE_MODE, syncDir } from "./atomicFile.js";
import { BadMessageFileError, MessageFilesTooBigError, StoreCorruptError } from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import { ensureRealDir, isRealDir, openNoFollow } from "./noFollow.js";
import type { TaskPaths } from "./taskDir.js";

/** A file as a message's record names it. */
export interface MessageFile {
  readonly name: string;
  readonly bytes: number;
  /** Lowercase hex. */
  readonly sha256: string;
}

/** A file as the sender gives it: its name in the workspace and its bytes. */
export interface MessageFileInput {
  readonly name: string;
  readonly data: Uint8Array;
}

/** Why a name cannot be a message file's, or undefined when it can. Pure. */
export function messageFileNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (Buffer.byteLength(name) > STORE_LIMITS.messageFileNameBytes) {
    return `it is longer than ${STORE_LIMITS.messageFileNameBytes} bytes`;
  }
  if (!MESSAGE_FILE_NAME.test(name)) {
    return "it may hold only letters, digits, '.', '_', '-' and '+', and may not start with '.'";
  }
  return undefined;
}

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * Checks the files of one message before any lock is taken: their count, their names (each
 * once), and their total size. Returns their records, in the order given.
 */
export function checkMessageFiles(files: readonly MessageFileInput[]): MessageFile[] {
  if (files.length > STORE_LIMITS.messageFiles) {
    throw new MessageFilesTooBigError(
      `a message takes at most ${STORE_LIMITS.messageFiles} files, and ${files.length} were given`,
    );
  }
  const seen = new Set<string>();
  let total = 0;
  const records: MessageFile[] = [];
  for (const file of files) {
    const problem = messageFileNameProblem(file.name);
    if (problem !== undefined) {
      throw new BadMessageFileError(
        `"${cleanLine(file.name)}" cannot be a message file's name: ${problem}`,
      );
    }
    if (seen.has(file.name)) {
      throw new BadMessageFileError(`two of the message's files are named ${file.name}`);
    }
    seen.add(file.name);
    total += file.data.byteLength;
    if (total > STORE_LIMITS.messageFilesBytes) {
      throw new MessageFilesTooBigError(
        `a message's files may hold at most ${STORE_LIMITS.messageFilesBytes} bytes in all`,
      );
    }
    records.push({ name: file.name, bytes: file.data.byteLength, sha256: sha256(file.data) });
  }
  return records;
}

/** The directory of message `n`'s files. */
export function messageFilesDir(paths: TaskPaths, n: number): string {
  return join(paths.messageFiles, String(n));
}

async function writeNew(path: string, data: Uint8Array): Promise<void> {
  const handle = await openNoFollow(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
    FILE_MODE,
  );
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes message `n`'s files, whole, before its record is written: into a temporary directory,
 * then renamed into place. Called under inbox.lock, so no other sender has `n`; a directory
 * already there is what a sender that crashed before writing its record left, and is replaced.
 */
export async function writeMessageFiles(
  paths: TaskPaths,
  n: number,
  files: readonly MessageFileInput[],
): Promise<void> {
  ensureRealDir(paths.messageFiles);
  const dir = messageFilesDir(paths, n);
  const temp = join(paths.messageFiles, `.${n}.tmp`);
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { mode: 0o700 });
  for (const file of files) await writeNew(join(temp, file.name), file.data);
  await syncDir(temp);
  if (isRealDir(dir)) await rm(dir, { recursive: true, force: true });
  await rename(temp, dir);
  await syncDir(paths.messageFiles);
}

/**
 * One of message `n`'s files, as it was sent: a file whose size or digest is not the record's
 * (changed, swapped, or a link planted in its place) is damage, and refused.
 */
export async function readMessageFile(
  paths: TaskPaths,
  n: number,
  file: MessageFile,
): Promise<Buffer> {
  const dir = messageFilesDir(paths, n);
  const path = join(dir, file.name);
  if (!isRealDir(paths.messageFiles) || !isRealDir(dir)) {
    throw new StoreCorruptError(`message ${n}'s files are missing from ${dir}`);
  }
  const handle = await openNoFollow(path, constants.O_RDONLY);
  let data: Buffer;
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size !== file.bytes) {
      throw new StoreCorruptError(`${path} is not the file that was sent with message ${n}`);
    }
    data = await handle.readFile();
  } finally {
    await handle.close();
  }
  if (data.byteLength !== file.bytes || sha256(data) !== file.sha256) {
    throw new StoreCorruptError(`${path} is not the file that was sent with message ${n}`);
  }
  return data;
}
