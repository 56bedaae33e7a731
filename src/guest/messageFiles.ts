// The files a user sent with a message (`warden send --file`), moved from where the host put
// them (the share's `messages/<n>/`, read-only) to where the agent works:
// `<agent's directory>/.warden-inbox/<n>/<name>`, a directory git is told to ignore, since the
// files are inputs to the task and not changes it made. The message the agent reads ends with a
// note that says where they are (protocol/messageNotes.ts).
import { appendFile, copyFile, lstat, mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../lang/index.js";
import {
  cleanLine,
  filesRefusedNote,
  MESSAGE_FILES_DIR,
  messageFilesNote,
  REPLY_FILES_NOTE,
  type ChannelMessage,
} from "../protocol/index.js";

export interface MessageFilePlaces {
  /** The share's `messages/`, where the host puts message n's files in `<n>/`. */
  readonly messages: string;
  /** The agent's directory, where `.warden-inbox/` is made and relative paths start. */
  readonly agentDir: string;
  /** The workspace: its repository's `info/exclude` keeps the inbox out of the changes. */
  readonly workspace: string;
}

/** The line git reads in info/exclude: the inbox, at any depth. */
const EXCLUDE_LINE = `${MESSAGE_FILES_DIR}/`;

/** A path that must be a directory of the runner's: anything else there (a link the agent made) goes. */
async function realDirectory(path: string): Promise<void> {
  const stats = await lstat(path).catch(() => undefined);
  if (stats?.isDirectory() === true) return;
  if (stats !== undefined) await rm(path, { recursive: true, force: true });
  await mkdir(path, { mode: 0o755 });
}

async function excludeInbox(gitDir: string): Promise<void> {
  const info = join(gitDir, "info");
  await mkdir(info, { recursive: true });
  const exclude = join(info, "exclude");
  const text = await readFile(exclude, "utf8").catch(() => "");
  if (text.split("\n").includes(EXCLUDE_LINE)) return;
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  await appendFile(exclude, `${separator}${EXCLUDE_LINE}\n`);
}

/**
 * Copies message n's files into the agent's directory and gives the body the agent reads: the
 * user's message, then the note. A copy that fails leaves the agent the message and a note
 * saying so, never a half-told list.
 */
export async function receiveMessageFiles(
  message: ChannelMessage,
  places: MessageFilePlaces | undefined,
): Promise<string> {
  const files = message.files ?? [];
  if (files.length === 0) return message.body;
  try {
    if (places === undefined) throw new Error("the runner has no workspace to put them in");
    await excludeInbox(join(places.workspace, ".git"));
    const inbox = join(places.agentDir, MESSAGE_FILES_DIR);
    await realDirectory(inbox);
    const dir = join(inbox, String(message.n));
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { mode: 0o755 });
    for (const file of files) {
      const source = join(places.messages, String(message.n), file.name);
      const stats = await lstat(source);
      if (!stats.isFile() || stats.size !== file.bytes) {
        throw new Error(`${file.name} in the share is not the file the host named`);
      }
      await copyFile(source, join(dir, file.name));
    }
  } catch (error) {
    return `${message.body}\n\n${filesRefusedNote(cleanLine(errorMessage(error)))}`;
  }
  return `${message.body}\n\n${messageFilesNote(message.n, files)}`;
}

/** The text the agent reads for a message: the message, its files' note, how to hand files back. */
export async function messageForAgent(
  message: ChannelMessage,
  places: MessageFilePlaces | undefined,
): Promise<string> {
  return `${await receiveMessageFiles(message, places)}\n\n${REPLY_FILES_NOTE}`;
}
