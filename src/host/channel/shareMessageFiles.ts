// Puts the files sent with a message where the runner takes them: the share's `messages/<n>/`,
// which the sandbox sees read-only. Each file is read back from the store against its recorded
// size and digest, so what the agent gets is exactly what was sent.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChannelMessage } from "../../protocol/index.js";
import type { Attachment, InboxMessage } from "../../store/index.js";

/**
 * The share is the sandbox's to read and never to write; the files are made readable by every
 * uid because a root warden's sandbox runs as a uid of its own, and the share's own directory
 * (0700, the sandbox's) keeps everyone else out.
 */
const FILE_MODE = 0o644;
const DIR_MODE = 0o755;

/**
 * Writes message `message.n`'s files into `messagesDir/<n>/` and gives the list the runner is
 * told of. All or none: a file the store refuses leaves the directory absent and throws.
 */
export async function shareMessageFiles(
  attachment: Attachment,
  messagesDir: string,
  message: InboxMessage,
): Promise<ChannelMessage["files"]> {
  const files = message.files ?? [];
  if (files.length === 0) return undefined;
  const dir = join(messagesDir, String(message.n));
  try {
    await mkdir(messagesDir, { mode: DIR_MODE, recursive: true });
    // A message delivered again after a crash finds its own directory from the first time.
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { mode: DIR_MODE });
    for (const file of files) {
      const data = await attachment.messageFile(message.n, file);
      await writeFile(join(dir, file.name), data, { mode: FILE_MODE, flag: "wx" });
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return files.map((file) => ({ name: file.name, bytes: file.bytes }));
}
