// `warden cp` inside the runner: one regular file into or out of the workspace. The path is
// relative to the workspace and has plain parts only (the protocol checks that), and no part on
// the way may be a link: the agent may have planted one to lead a copy somewhere else, so every
// directory is looked at with lstat, the file is opened with O_NOFOLLOW, and a file put is
// written beside its place and renamed over it (a rename replaces a link, never follows it).
import { constants, createReadStream } from "node:fs";
import { lstat, mkdir, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { randomHex } from "../lang/index.js";
import { FRAME, INSIDE_LIMITS, cleanLine } from "../protocol/index.js";
import { InsidePathError } from "./errors.js";
import type { FrameLink } from "./frameLink.js";

/**
 * The directory `path` is in, each part of it checked to be a real directory (made when
 * `create` and missing). Throws InsidePathError for a link or anything else on the way.
 */
async function realParent(workspace: string, path: string, create: boolean): Promise<string> {
  const parts = path.split("/");
  let dir = workspace;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const stat = await lstat(dir).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    });
    if (stat === undefined && create) {
      await mkdir(dir, { mode: 0o755 });
      continue;
    }
    if (stat === undefined) throw new InsidePathError(`${cleanLine(path)}: no such directory`);
    if (!stat.isDirectory() || stat.isSymbolicLink()) {
      throw new InsidePathError(
        `${cleanLine(path)}: ${cleanLine(part)} is not a directory (a link?)`,
      );
    }
  }
  return dir;
}

/** Streams one file of the workspace to the host as stdout frames; returns its bytes. */
export async function getFile(link: FrameLink, workspace: string, path: string): Promise<number> {
  const full = join(await realParent(workspace, path, false), path.split("/").at(-1) ?? "");
  const handle = await open(full, constants.O_RDONLY | constants.O_NOFOLLOW).catch(
    (thrown: unknown) => {
      const error = thrown as NodeJS.ErrnoException;
      throw new InsidePathError(
        error.code === "ELOOP"
          ? `${cleanLine(path)} is a link`
          : error.code === "ENOENT"
            ? `${cleanLine(path)}: no such file in the workspace`
            : `${cleanLine(path)}: ${error.code ?? "cannot be opened"}`,
      );
    },
  );
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new InsidePathError(`${cleanLine(path)} is not a regular file`);
    if (stat.size > INSIDE_LIMITS.copyBytes) {
      throw new InsidePathError(
        `${cleanLine(path)} is ${stat.size} bytes, over the ${INSIDE_LIMITS.copyBytes} a copy may have`,
      );
    }
    let sent = 0;
    const stream = createReadStream("", {
      fd: handle,
      autoClose: false,
      highWaterMark: INSIDE_LIMITS.frameBytes,
    });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      // A file that grows while it is read is cut at the limit, never sent past it.
      const piece = chunk.subarray(0, INSIDE_LIMITS.copyBytes - sent);
      if (!(await link.send(FRAME.stdout, piece))) break;
      sent += piece.byteLength;
      if (sent >= INSIDE_LIMITS.copyBytes) break;
    }
    return sent;
  } finally {
    await handle.close();
  }
}

/** Where a file being put is written before it is renamed into place. */
function tempName(dir: string): string {
  return join(dir, `.warden-cp-${randomHex(6)}`);
}

/**
 * Receives a file of `bytes` bytes (stdin frames, then stdinEnd) and puts it at `path`. More
 * or fewer bytes than announced is refused and nothing is left behind.
 */
export async function putFile(
  link: FrameLink,
  workspace: string,
  path: string,
  bytes: number,
  mode: number,
): Promise<number> {
  const dir = await realParent(workspace, path, true);
  const name = path.split("/").at(-1) ?? "";
  const existing = await lstat(join(dir, name)).catch(() => undefined);
  if (existing !== undefined && !existing.isFile()) {
    throw new InsidePathError(`${cleanLine(path)} is there and is not a regular file`);
  }
  const temp = tempName(dir);
  const handle = await open(
    temp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode & 0o777,
  );
  let written = 0;
  let failure: Error | undefined;
  let writing: Promise<unknown> = Promise.resolve();
  try {
    await new Promise<void>((resolve, reject) => {
      link.onFrame((kind, payload) => {
        if (kind === FRAME.stdin) {
          written += payload.byteLength;
          if (written > bytes) {
            failure = new InsidePathError(`more than the ${bytes} bytes announced came`);
            resolve();
            return;
          }
          const copy = Buffer.from(payload);
          writing = writing.then(() => handle.write(copy));
        } else if (kind === FRAME.stdinEnd) {
          resolve();
        }
      });
      link.closed.then(() => {
        reject(new InsidePathError("the host went away mid-copy"));
      }, reject);
    });
    await writing;
    if (failure !== undefined) throw failure;
    if (written !== bytes) {
      throw new InsidePathError(`${written} bytes came where ${bytes} were announced`);
    }
    await handle.close();
    await rename(temp, join(dir, name));
    return written;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
}
