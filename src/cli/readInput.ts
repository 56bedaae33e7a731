// The prompt and a message as the CLI reads them: from a regular file, from stdin, or from the
// command line. A file that is not a regular file (a FIFO, a directory, a device) is refused
// before anything is read from it: a FIFO nobody writes to would make warden wait forever. The
// bytes go to the store as they are, and the store refuses what is not UTF-8 text.
import { constants, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { cleanLine } from "../protocol/index.js";
import {
  MessageFilesTooBigError,
  MessageNotTextError,
  MessageTooBigError,
  notText,
  overLimit,
  PromptNotTextError,
  PromptTooBigError,
  STORE_LIMITS,
} from "../store/index.js";
import { UsageError } from "./cliErrors.js";

/** What is being read, and how its refusals are worded. */
export interface InputKind {
  /** "prompt" or "message". */
  noun: string;
  /** The option that names its file. */
  fileOption: string;
  /** What to give instead of a file that is not a regular one. */
  fileHint: string;
  maxBytes: number;
  tooBig(bytes: number, max: number): Error;
  notText(why: string): Error;
}

export const PROMPT_INPUT: InputKind = {
  noun: "prompt",
  fileOption: "--prompt-file",
  fileHint: "give --prompt-file a regular file, or - to read the prompt from stdin",
  maxBytes: STORE_LIMITS.promptBytes,
  tooBig: (bytes, max) => new PromptTooBigError(overLimit("prompt", bytes, max)),
  notText: (why) => new PromptNotTextError(notText("prompt", why)),
};

export const MESSAGE_INPUT: InputKind = {
  noun: "message",
  fileOption: "--message-file",
  fileHint: "give --message-file a regular file, or pipe the message to stdin",
  maxBytes: STORE_LIMITS.messageMaxBytes,
  tooBig: (bytes, max) => new MessageTooBigError(overLimit("message", bytes, max)),
  notText: (why) => new MessageNotTextError(notText("message", why)),
};

/** A file sent with a message (`send --file`): any bytes, within the message's files' bound. */
export const SENT_FILE_INPUT: InputKind = {
  noun: "sent",
  fileOption: "--file",
  fileHint: "give --file a regular file",
  maxBytes: STORE_LIMITS.messageFilesBytes,
  tooBig: (bytes, max) =>
    new MessageFilesTooBigError(
      `the file is ${bytes} bytes, and a message's files may hold at most ${max} bytes in all`,
    ),
  notText: (why) => new MessageNotTextError(notText("message", why)),
};

function kindOfFile(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isDirectory()) return "a directory";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

function notRegular(path: string, stats: Stats, kind: InputKind): UsageError {
  return new UsageError(
    `the ${kind.noun} file ${cleanLine(path)} is ${kindOfFile(stats)}, not a regular file`,
    { hint: kind.fileHint },
  );
}

/**
 * The bytes of a regular file (links resolved). It is checked with stat before it is opened, and
 * opened without blocking and checked again, so a FIFO put in its place in between cannot hang.
 */
export async function readRegularFile(path: string, kind: InputKind): Promise<Buffer> {
  const unreadable = (): UsageError =>
    new UsageError(`cannot read the ${kind.noun} file ${cleanLine(path)}`, {
      hint: `give a readable file to ${kind.fileOption}`,
    });
  const before = await stat(path).catch(() => {
    throw unreadable();
  });
  if (!before.isFile()) throw notRegular(path, before, kind);
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => {
    throw unreadable();
  });
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegular(path, stats, kind);
    if (stats.size > kind.maxBytes) throw kind.tooBig(stats.size, kind.maxBytes);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** All of stdin, refusing more than `kind` may hold before it is all in memory. */
export async function readStdinBytes(kind: InputKind): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    if (bytes > kind.maxBytes) {
      throw new UsageError(`the ${kind.noun} on stdin is over ${kind.maxBytes} bytes`, {
        hint: "put large material in the repository and point the text at it",
      });
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Text from the command line. Node has already decoded the arguments, putting U+FFFD for bytes
 * that are not UTF-8, so a U+FFFD there is taken for such bytes and refused: the raw bytes are
 * gone, and passing the replacement on would change the text without a word.
 */
export function commandLineText(text: string, kind: InputKind): string {
  if (text.includes("\ufffd")) {
    throw kind.notText("it came on the command line with bytes that are not UTF-8 (a U+FFFD)");
  }
  return text;
}
