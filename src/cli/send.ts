// `warden send`: a message into a running task's inbox, and with --await, the agent's reply.
import { basename, join } from "node:path";
import type { Command } from "commander";
import { checkTakesMessages } from "../host/index.js";
import { cleanText } from "../protocol/index.js";
import {
  MessageFilesTooBigError,
  replyFilesDir,
  STORE_LIMITS,
  TaskPaths,
  type InboxMessage,
  type MessageFileInput,
  type Tasks,
} from "../store/index.js";
import { LocalOnlyVerbError, UsageError } from "./cliErrors.js";
import { withStore, type OpenStore } from "./context.js";
import { EXIT } from "./exitCodes.js";
import { parseMs } from "./parseValues.js";
import {
  commandLineText,
  MESSAGE_INPUT,
  readRegularFile,
  readStdinBytes,
  SENT_FILE_INPUT,
} from "./readInput.js";
import { printJson } from "./taskView.js";
import { standardOut, standardError } from "./standardStreams.js";

interface SendFlags {
  messageFile?: string;
  file?: string[];
  json?: boolean;
  await?: boolean;
  timeout?: string;
}

function collectFiles(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * The files given with --file, each under its own name (the path's last part), read whole before
 * the store is touched; the store checks the names, the count and the total.
 */
async function readSentFiles(paths: readonly string[]): Promise<MessageFileInput[]> {
  if (paths.length > STORE_LIMITS.messageFiles) {
    throw new MessageFilesTooBigError(
      `a message takes at most ${STORE_LIMITS.messageFiles} files, and ${paths.length} were given`,
    );
  }
  const files: MessageFileInput[] = [];
  for (const path of paths) {
    files.push({ name: basename(path), data: await readRegularFile(path, SENT_FILE_INPUT) });
  }
  return files;
}

/** The files the agent handed back with its reply, each with where it is kept. */
function handedBack(tasks: Tasks, id: string, message: InboxMessage) {
  const dir = replyFilesDir(new TaskPaths(tasks.dataDir, id), message.n);
  return (message.replyFiles ?? []).map((file) => ({
    name: file.name,
    bytes: file.bytes,
    path: join(dir, file.name),
  }));
}

function replyJson(tasks: Tasks, id: string, message: InboxMessage): Record<string, unknown> {
  return {
    id,
    n: message.n,
    state: message.state,
    reply: message.reply,
    replyCut: message.replyCut,
    replyFiles: handedBack(tasks, id, message),
  };
}

/** Waits for the reply to message `n` and prints it; returns the exit code. */
async function awaitReply(tasks: Tasks, id: string, n: number, flags: SendFlags): Promise<number> {
  const timeoutMs = flags.timeout === undefined ? undefined : parseMs(flags.timeout, "--timeout");
  const outcome = await tasks.waitReply(id, n, { timeoutMs });
  const json = flags.json === true;
  switch (outcome.kind) {
    case "delivered": {
      if (json) printJson(replyJson(tasks, id, outcome.message));
      else {
        const reply = outcome.message.reply;
        const text =
          reply === undefined || reply.trim() === ""
            ? "(the agent gave no reply)"
            : cleanText(reply);
        standardOut.write(text.endsWith("\n") ? text : text + "\n");
        if (outcome.message.replyCut === true) standardOut.write("[reply cut at 4 KiB]\n");
        for (const file of handedBack(tasks, id, outcome.message)) {
          standardError.write(`handed back: ${file.path} (${file.bytes} bytes)\n`);
        }
      }
      return EXIT.ok;
    }
    case "ended":
      if (json)
        printJson({ ...replyJson(tasks, id, outcome.message), taskState: outcome.terminal.state });
      standardError.write(
        `warden: task ${id} ${outcome.terminal.state} before it answered message ${n}\n` +
          `hint: see what happened with \`warden show ${await tasks.shortId(id)}\`\n`,
      );
      return EXIT.failed;
    case "timed_out":
      if (json) printJson({ ...replyJson(tasks, id, outcome.message), timedOut: true });
      standardError.write(
        `warden: no reply to message ${n} of task ${id} after ${flags.timeout ?? ""} (it is ${outcome.message.state})\n` +
          `hint: the agent takes messages between its turns; wait longer with --timeout, or follow it with \`warden watch ${await tasks.shortId(id)}\`\n`,
      );
      return EXIT.bound;
  }
}

export function registerSend(program: Command): void {
  program
    .command("send")
    .summary("send a message to a task")
    .description(
      "Put a message into a task's inbox, for its agent to take. A task takes at most 16 " +
        "messages over its life; a finished or cancelling task takes none, nor does a task of " +
        "the `command` agent, which reads only its prompt. Files sent with --file land in " +
        "the agent's working directory under .warden-inbox/<n>/; a line `warden-file: PATH` " +
        "in the agent's reply hands a file back.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .argument("[message...]", "the message (else --message-file, else stdin)")
    .option("--message-file <file>", "read the message from FILE")
    .option(
      "--file <path>",
      `send a file with the message, into the task's workspace (repeatable; at most ${STORE_LIMITS.messageFiles} files, ${STORE_LIMITS.messageFilesBytes / (1024 * 1024)} MiB in all)`,
      collectFiles,
    )
    .option("--json", "print the message's number and state as JSON")
    .option("--await", "wait for the agent's reply to the message and print it")
    .option("--timeout <duration>", "with --await: give up after this long (exit 3): 30s, 10m")
    .addHelpText(
      "after",
      "\nExit status: 0 sent (with --await: answered), 1 the task ended before it answered,\n" +
        "2 usage error, 3 no reply before --timeout.\n",
    )
    .action(async (ref: string, words: string[], flags: SendFlags, cmd: Command) => {
      if (flags.timeout !== undefined && flags.await !== true) {
        throw new UsageError("--timeout goes with --await", {
          hint: "add --await, or drop --timeout",
        });
      }
      // Bytes from a file or stdin go to the store as they are: it refuses what is not UTF-8.
      let body: string | Buffer;
      if (words.length > 0) body = commandLineText(words.join(" "), MESSAGE_INPUT);
      else if (flags.messageFile !== undefined)
        body = await readRegularFile(flags.messageFile, MESSAGE_INPUT);
      else if (!process.stdin.isTTY) body = await readStdinBytes(MESSAGE_INPUT);
      else
        throw new UsageError("no message was given", {
          hint: "give it as arguments, with --message-file, or on stdin",
        });
      await withStore(cmd, async (open) => sendMessage(open, ref, body, flags));
    });
}

/** Sends the message (and waits for its reply, with --await) once its text is read. */
async function sendMessage(
  open: OpenStore,
  ref: string,
  body: string | Buffer,
  flags: SendFlags,
): Promise<void> {
  if (open.kind === "fleet" && (flags.file !== undefined || flags.await === true)) {
    throw new LocalOnlyVerbError(
      "--file and --await work on this machine's tasks only: a fleet's task keeps its files on its worker",
      { hint: "send the text alone, and follow the task with `warden watch`" },
    );
  }
  const tasks = open.store;
  const id = await tasks.resolve(ref);
  // Refused before the inbox is touched: a message no agent reads is never accepted. A
  // finished task is left to the store, whose refusal (it has finished) says more.
  const details = await tasks.get(id);
  if (details.terminal === undefined) checkTakesMessages(id, details.spec.settings);
  const files = await readSentFiles(flags.file ?? []);
  const message =
    open.kind === "local" ? await open.tasks.send(id, body, { files }) : await tasks.send(id, body);
  if (flags.await === true && open.kind === "local") {
    if (flags.json !== true)
      standardError.write(`sent message ${message.n} to ${id}; waiting for the reply\n`);
    process.exitCode = await awaitReply(open.tasks, id, message.n, flags);
    return;
  }
  const sent = message.files ?? [];
  if (flags.json === true) {
    printJson({
      id,
      n: message.n,
      state: message.state,
      files: sent.map((file) => ({ name: file.name, bytes: file.bytes })),
    });
  } else {
    const withFiles =
      sent.length === 0 ? "" : ` with ${sent.length === 1 ? "1 file" : `${sent.length} files`}`;
    standardOut.write(`sent message ${message.n} to ${id}${withFiles}\n`);
  }
}
