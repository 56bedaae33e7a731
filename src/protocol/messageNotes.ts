// What the agent reads after a message: where the files that came with it are (or why they are
// not there), and how to hand files back with its reply. Both ends word it, so it is worded once.
import { LIMITS } from "./limits.js";
import { MESSAGE_FILES_DIR } from "./names.js";

/**
 * A line of a reply that hands a file back: `warden-file: PATH`, the path relative to the
 * agent's working directory or absolute, in the workspace.
 */
export const REPLY_FILE_LINE = /^warden-file:[ \t]*(\S.*?)[ \t]*$/m;

/** The note after every message: how the agent hands files back with its reply. */
export const REPLY_FILES_NOTE =
  "[warden: to hand files back with your reply, put a line `warden-file: PATH` in it for " +
  `each (a file in the workspace; at most ${LIMITS.messageFiles}, ` +
  `${LIMITS.messageFilesBytes / (1024 * 1024)} MiB in all).]`;

function bytesText(bytes: number): string {
  return bytes === 1 ? "1 byte" : `${bytes.toLocaleString("en-US")} bytes`;
}

/** The note after message n, whose files are in `.warden-inbox/<n>/`. Pure. */
export function messageFilesNote(
  n: number,
  files: readonly { name: string; bytes: number }[],
): string {
  const list = files.map((file) => `${file.name} (${bytesText(file.bytes)})`).join(", ");
  const count = files.length === 1 ? "1 file" : `${files.length} files`;
  return (
    `[warden: ${count} came with this message, in ${MESSAGE_FILES_DIR}/${n}/ under your ` +
    `working directory: ${list}. They are not part of the repository and git ignores them.]`
  );
}

/** The note after a message whose files could not be handed over, and why (one clean line). */
export function filesRefusedNote(why: string): string {
  return `[warden: files were sent with this message, but they could not be delivered: ${why}]`;
}
