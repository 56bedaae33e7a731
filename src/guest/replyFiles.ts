// Files the agent hands back with its reply to a message: each named on a line of the reply,
// `warden-file: PATH` (the message told it so, protocol/messageNotes.ts). The runner sends each
// one in pieces over the channel before the reply itself, so the host has them when it records
// the reply. Only regular files inside the workspace go, links resolved first, within the same
// bounds as the files a message brings; the host checks every piece again.
import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { basename, isAbsolute, relative, resolve } from "node:path";
import { errorMessage } from "../lang/index.js";
import {
  CHANNEL_LIMITS,
  cleanLine,
  LIMITS,
  MESSAGE_FILE_NAME,
  REPLY_FILE_LINE,
} from "../protocol/index.js";
import type { ChannelAsk } from "./hostChannel.js";
import type { MessageFilePlaces } from "./messageFiles.js";

/** What sending pieces needs of the channel to the host. */
export interface PieceChannel {
  request(ask: Extract<ChannelAsk, { op: "reply.file" }>): Promise<unknown>;
}

/** The paths a reply names, each once, in order. Pure. */
export function namedReplyFiles(reply: string): string[] {
  const named: string[] = [];
  for (const match of reply.matchAll(new RegExp(REPLY_FILE_LINE.source, "gm"))) {
    const path = match[1];
    if (path !== undefined && !named.includes(path)) named.push(path);
  }
  return named;
}

/** A named file that may go: its name for the host, where it really is, and its size. */
interface Outgoing {
  readonly name: string;
  readonly path: string;
}

/** Why a named path may not be handed back, or the file it is. */
async function outgoing(
  named: string,
  places: MessageFilePlaces,
  workspace: string,
): Promise<Outgoing | string> {
  const name = basename(named);
  if (!MESSAGE_FILE_NAME.test(name) || Buffer.byteLength(name) > LIMITS.messageFileNameBytes) {
    return `its name ${cleanLine(name)} is not a plain file name`;
  }
  let path: string;
  try {
    path = await realpath(resolve(places.agentDir, named));
  } catch {
    return "it does not exist";
  }
  const inside = relative(workspace, path);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) {
    return "it is outside the workspace";
  }
  return { name, path };
}

/** Sends one file in pieces; returns the bytes sent, or throws what stopped it. */
async function sendFile(
  channel: PieceChannel,
  n: number,
  file: Outgoing,
  budget: number,
): Promise<number> {
  const handle = await open(file.path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error("it is not a regular file");
    if (stats.size > budget) {
      throw new Error(`it would take the reply's files over ${LIMITS.messageFilesBytes} bytes`);
    }
    const piece = Buffer.alloc(CHANNEL_LIMITS.replyFileChunkBytes);
    let offset = 0;
    for (;;) {
      const { bytesRead } = await handle.read(piece, 0, piece.length, offset);
      // A file that grows while it is sent is cut where it was when it was measured.
      const take = Math.min(bytesRead, stats.size - offset);
      const last = offset + take >= stats.size;
      await channel.request({
        op: "reply.file",
        n,
        name: file.name,
        offset,
        data: piece.subarray(0, take).toString("base64"),
        last,
      });
      offset += take;
      if (last) return offset;
    }
  } finally {
    await handle.close();
  }
}

/**
 * Sends the files the reply to message `n` names, before the reply: at most as many and as
 * large as a message's files. What cannot go is said in a warning, and the rest still goes.
 */
export async function sendReplyFiles(
  channel: PieceChannel,
  n: number,
  reply: string,
  places: MessageFilePlaces | undefined,
  warn: (text: string) => void,
): Promise<void> {
  const named = namedReplyFiles(reply);
  if (named.length === 0) return;
  if (places === undefined) {
    warn(
      `the reply to message ${n} names files, but the runner has no workspace to take them from`,
    );
    return;
  }
  if (named.length > LIMITS.messageFiles) {
    warn(
      `the reply to message ${n} names ${named.length} files; only the first ${LIMITS.messageFiles} are handed back`,
    );
  }
  const workspace = await realpath(places.workspace);
  const names = new Set<string>();
  let budget = LIMITS.messageFilesBytes;
  for (const path of named.slice(0, LIMITS.messageFiles)) {
    const file = await outgoing(path, places, workspace);
    const why =
      typeof file === "string"
        ? file
        : names.has(file.name)
          ? `another file named ${file.name} is handed back already`
          : undefined;
    if (why !== undefined || typeof file === "string") {
      warn(`${cleanLine(path)}, named in the reply to message ${n}, is not handed back: ${why}`);
      continue;
    }
    names.add(file.name);
    try {
      budget -= await sendFile(channel, n, file, budget);
    } catch (error) {
      warn(
        `${cleanLine(path)}, named in the reply to message ${n}, is not handed back: ${cleanLine(errorMessage(error))}`,
      );
    }
  }
}
