// The inbox: inbox.json, replaced atomically by anyone holding inbox.lock. A message goes
// pending → in_flight (the executor took it) → delivered (with a reply cut to 4 KiB). A task
// takes at most 16 messages over its life, and none once it has finished or is being cancelled.
import { existsSync } from "node:fs";
import { cutText, MESSAGE_FILE_NAME, TASK_ID } from "../protocol/index.js";
import { withBriefLock } from "./attachLock.js";
import { readJsonFile, writeFileAtomic, type StoreHooks } from "./atomicFile.js";
import {
  damaged,
  hasFinished,
  InboxFullError,
  MessageEmptyError,
  MessageNotTextError,
  MessageStateError,
  MessageTooBigError,
  notText,
  overLimit,
  StoreCorruptError,
  TaskCancellingError,
  TaskFinishedError,
} from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import { decodeInputText } from "./inputText.js";
import { checkMessageFiles, writeMessageFiles, type MessageFileInput } from "./messageFiles.js";
import {
  arrayOf,
  bool,
  int,
  matching,
  nullable,
  oneOf,
  optional,
  strictObject,
  text,
  type ShapeOf,
} from "./recordShape.js";
import { collectReplyFiles, writeReplyPiece, type ReplyFilePiece } from "./replyFiles.js";
import type { TaskPaths } from "./taskDir.js";
import { readTerminal } from "./readTask.js";

export const MESSAGE_STATES = ["pending", "in_flight", "delivered"] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

const fileList = arrayOf(
  strictObject({
    name: matching(MESSAGE_FILE_NAME),
    bytes: int(0, STORE_LIMITS.messageFilesBytes),
    sha256: matching(/^[0-9a-f]{64}$/),
  }),
  STORE_LIMITS.messageFiles,
);

export const isInboxMessage = strictObject({
  /** 1 to 16, in the order the messages arrived. */
  n: int(1, STORE_LIMITS.inboxMessages),
  /** The sending task, or null from outside any task. */
  from: nullable(matching(TASK_ID)),
  at: int(),
  body: text,
  state: oneOf(MESSAGE_STATES),
  takenAt: optional(int()),
  deliveredAt: optional(int()),
  reply: optional(text),
  replyCut: optional(bool),
  /** The files sent with it, kept in message-files/<n>/ (messageFiles.ts). */
  files: optional(fileList),
  /** The files the agent handed back with its reply, kept in reply-files/<n>/ (replyFiles.ts). */
  replyFiles: optional(fileList),
});

export type InboxMessage = ShapeOf<typeof isInboxMessage>;

const isInbox = strictObject({ messages: arrayOf(isInboxMessage, STORE_LIMITS.inboxMessages) });

/** Reads inbox.json without a lock: it is only ever replaced whole. */
export async function readInbox(paths: TaskPaths): Promise<InboxMessage[]> {
  const value = await readJsonFile(paths.inbox);
  if (value === undefined) return [];
  if (!isInbox(value)) throw new StoreCorruptError(damaged(paths.inbox, "not an inbox"));
  return value.messages;
}

/** Runs `fn` holding inbox.lock; a lock that stays taken for 10 s is an error, not a hang. */
export async function withInboxLock<T>(paths: TaskPaths, fn: () => Promise<T>): Promise<T> {
  return withBriefLock(paths.inboxLock, fn);
}

/**
 * Checks a message body before any lock is taken and gives its text: UTF-8 without NUL (bytes
 * that are not UTF-8 are refused, never replaced), 1 byte to 256 KiB.
 */
export function checkBody(body: string | Uint8Array): string {
  // Bytes over the bound are refused before they are decoded.
  if (typeof body !== "string" && body.byteLength > STORE_LIMITS.messageMaxBytes) {
    throw new MessageTooBigError(
      overLimit("message", body.byteLength, STORE_LIMITS.messageMaxBytes),
    );
  }
  const decoded = decodeInputText(body);
  if ("notText" in decoded) throw new MessageNotTextError(notText("message", decoded.notText));
  const bytes = Buffer.byteLength(decoded.text);
  if (bytes < STORE_LIMITS.messageMinBytes) throw new MessageEmptyError("the message is empty");
  if (bytes > STORE_LIMITS.messageMaxBytes) {
    throw new MessageTooBigError(overLimit("message", bytes, STORE_LIMITS.messageMaxBytes));
  }
  return decoded.text;
}

async function writeInbox(
  paths: TaskPaths,
  messages: InboxMessage[],
  hooks: StoreHooks,
): Promise<void> {
  await writeFileAtomic(paths.inbox, JSON.stringify({ messages }) + "\n", hooks);
}

/**
 * Adds a message and its files, refusing it once the task finished, is being cancelled, or had
 * its 16. The files are written whole before the record that names them.
 */
export async function appendMessage(
  paths: TaskPaths,
  given: string | Uint8Array,
  from: string | null,
  at: number,
  hooks: StoreHooks,
  files: readonly MessageFileInput[] = [],
): Promise<InboxMessage> {
  const body = checkBody(given);
  const records = checkMessageFiles(files);
  return withInboxLock(paths, async () => {
    // Under the lock: finish() writes terminal.json holding it, so a message is either in
    // before the end or refused.
    const terminal = await readTerminal(paths);
    if (terminal !== undefined) {
      throw new TaskFinishedError(hasFinished(paths.id, terminal, "it takes no more messages"), {
        terminal,
      });
    }
    if (existsSync(paths.cancel)) {
      throw new TaskCancellingError(
        `task ${paths.id} is being cancelled, so it takes no more messages`,
      );
    }
    const messages = await readInbox(paths);
    if (messages.length >= STORE_LIMITS.inboxMessages) {
      throw new InboxFullError(
        `task ${paths.id} has had its ${STORE_LIMITS.inboxMessages} messages`,
      );
    }
    const n = messages.length + 1;
    const message: InboxMessage = { n, from, at, body, state: "pending" };
    if (records.length > 0) {
      await writeMessageFiles(paths, n, files);
      message.files = records;
    }
    await writeInbox(paths, [...messages, message], hooks);
    return message;
  });
}

/** Moves every pending message to in_flight and returns them, oldest first. */
export async function takePending(
  paths: TaskPaths,
  at: number,
  hooks: StoreHooks,
): Promise<InboxMessage[]> {
  return withInboxLock(paths, async () => {
    const messages = await readInbox(paths);
    const taken = messages.filter((m) => m.state === "pending");
    if (taken.length === 0) return [];
    for (const m of taken) {
      m.state = "in_flight";
      m.takenAt = at;
    }
    await writeInbox(paths, messages, hooks);
    return taken;
  });
}

/** Marks an in_flight message delivered, with the executor's reply cut to 4 KiB. */
export async function deliverMessage(
  paths: TaskPaths,
  n: number,
  reply: string | undefined,
  at: number,
  hooks: StoreHooks,
): Promise<InboxMessage> {
  return withInboxLock(paths, async () => {
    const messages = await readInbox(paths);
    const message = messages.find((m) => m.n === n);
    if (message === undefined)
      throw new MessageStateError(`message ${n} of task ${paths.id} does not exist`);
    if (message.state !== "in_flight") {
      throw new MessageStateError(
        `message ${n} of task ${paths.id} is ${message.state}, not in_flight`,
      );
    }
    message.state = "delivered";
    message.deliveredAt = at;
    const handedBack = await collectReplyFiles(paths, n);
    if (handedBack.length > 0) message.replyFiles = handedBack;
    if (reply !== undefined) {
      const { text, cut } = cutText(reply, STORE_LIMITS.summaryBytes);
      message.reply = text;
      message.replyCut = cut;
    }
    await writeInbox(paths, messages, hooks);
    return message;
  });
}

/** Appends a piece of a file handed back with the reply to an in-flight message. */
export async function appendReplyPiece(paths: TaskPaths, piece: ReplyFilePiece): Promise<void> {
  await withInboxLock(paths, async () => {
    await writeReplyPiece(paths, await readInbox(paths), piece);
  });
}

/**
 * Puts messages a dead executor took but never delivered back to pending, so the next attach
 * gets them again: delivery is at least once across crashes, exactly once otherwise.
 */
export async function requeueInFlight(paths: TaskPaths, hooks: StoreHooks): Promise<number> {
  if (!existsSync(paths.inbox)) return 0;
  return withInboxLock(paths, async () => {
    const messages = await readInbox(paths);
    const stuck = messages.filter((m) => m.state === "in_flight");
    if (stuck.length === 0) return 0;
    for (const m of stuck) {
      m.state = "pending";
      delete m.takenAt;
    }
    await writeInbox(paths, messages, hooks);
    return stuck.length;
  });
}

/**
 * Moves the oldest pending message to in_flight and returns it, or undefined when none is
 * pending. Exactly one message moves, so an executor that takes one message per turn boundary
 * never holds more than it can answer.
 */
export async function takeOldestPending(
  paths: TaskPaths,
  at: number,
  hooks: StoreHooks,
): Promise<InboxMessage | undefined> {
  if (!existsSync(paths.inbox)) return undefined;
  return withInboxLock(paths, async () => {
    const messages = await readInbox(paths);
    const next = messages.find((m) => m.state === "pending");
    if (next === undefined) return undefined;
    next.state = "in_flight";
    next.takenAt = at;
    await writeInbox(paths, messages, hooks);
    return next;
  });
}
