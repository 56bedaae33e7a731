// Waiting for the reply to one message: until the executor marks it delivered, the task ends
// without delivering it, or a timeout. Reads inbox.json and terminal.json only, on fs.watch of
// the task directory with a poll as the safety net; never takes a lock.
import { ChangeBell } from "./changeBell.js";
import { MessageStateError } from "./errors.js";
import { readInbox, type InboxMessage } from "./inbox.js";
import { readTerminal } from "./readTask.js";
import type { TaskPaths } from "./taskDir.js";
import type { TerminalRecord } from "./terminalRecord.js";

export type ReplyOutcome =
  /** The message was delivered; `message.reply` is the agent's answer (cut to 4 KiB), if any. */
  | { kind: "delivered"; message: InboxMessage }
  /** The task finished before it delivered the message: no reply will come. */
  | { kind: "ended"; message: InboxMessage; terminal: TerminalRecord }
  | { kind: "timed_out"; message: InboxMessage };

export interface AwaitReplyOptions {
  /** Give up after this long (default: no limit). */
  timeoutMs?: number;
  /** Aborting rejects the wait with the signal's reason. */
  signal?: AbortSignal;
}

export async function awaitReply(
  paths: TaskPaths,
  n: number,
  options: AwaitReplyOptions,
  now: () => number,
): Promise<ReplyOutcome> {
  const bell = new ChangeBell(paths.dir, options.signal);
  const giveUpAt = now() + (options.timeoutMs ?? Infinity);
  try {
    for (;;) {
      // The terminal record first: a message read as undelivered after it stays undelivered,
      // since the executor writes terminal.json holding inbox.lock as its last act.
      const terminal = await readTerminal(paths);
      const message = (await readInbox(paths)).find((m) => m.n === n);
      if (message === undefined) {
        throw new MessageStateError(`message ${n} of task ${paths.id} does not exist`);
      }
      if (message.state === "delivered") return { kind: "delivered", message };
      if (terminal !== undefined) return { kind: "ended", message, terminal };
      options.signal?.throwIfAborted();
      if (now() >= giveUpAt) return { kind: "timed_out", message };
      await bell.wait(giveUpAt - now());
    }
  } finally {
    bell.close();
  }
}
