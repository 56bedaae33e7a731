// The dashboard's access token: random, kept in the data directory readable by its owner alone,
// made on first use and replaced on request. Every request to `warden serve` must carry it.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../store/index.js";
import { WebTokenError } from "./errors.js";
import { WEB_LIMITS } from "./limits.js";

/** The token file's name in the data directory. */
export const TOKEN_FILE = "web-token";

/** A token as warden writes it: base64url of WEB_LIMITS.tokenBytes random bytes. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

function newToken(): string {
  return randomBytes(WEB_LIMITS.tokenBytes).toString("base64url");
}

/**
 * The token in `dataDir`, made when there is none. A file that is a link, not a regular file, not
 * the user's own, readable by anyone else, or not a token is refused, never used.
 */
export async function readOrMakeToken(dataDir: string): Promise<string> {
  const path = join(dataDir, TOKEN_FILE);
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return rotateToken(dataDir);
    if (code === "ELOOP") throw new WebTokenError(`the token file ${path} is a link`);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new WebTokenError(`the token file ${path} is not a regular file`);
    if (process.getuid !== undefined && info.uid !== process.getuid()) {
      throw new WebTokenError(`the token file ${path} belongs to another user`);
    }
    if ((info.mode & 0o077) !== 0) {
      throw new WebTokenError(`the token file ${path} can be read by other users`);
    }
    const text = (await handle.readFile("utf8")).trim();
    if (!TOKEN_SHAPE.test(text)) throw new WebTokenError(`the token file ${path} holds no token`);
    return text;
  } finally {
    await handle.close();
  }
}

/** Writes a new token (0600) in place of the old one, which stops working at once. */
export async function rotateToken(dataDir: string): Promise<string> {
  const token = newToken();
  await writeFileAtomic(join(dataDir, TOKEN_FILE), `${token}\n`);
  return token;
}

/** Whether `given` is the token, compared in constant time. */
export function isToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
