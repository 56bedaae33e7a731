// `warden send`: a message into a running task's inbox.
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { cleanLine, LIMITS } from "../protocol/index.js";
import { UsageError } from "./cliErrors.js";
import { openTasks } from "./context.js";
import { printJson } from "./taskView.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of process.stdin) {
    bytes += (chunk as Buffer).length;
    // The store refuses big messages itself; this only keeps a runaway pipe out of memory.
    if (bytes > LIMITS.promptBytes) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function registerSend(program: Command): void {
  program
    .command("send")
    .summary("send a message to a task")
    .description(
      "Put a message into a task's inbox, for its agent to take. A task takes at most 16 " +
        "messages over its life; a finished or cancelling task takes none.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .argument("[message...]", "the message (else --file, else stdin)")
    .option("--file <file>", "read the message from FILE")
    .option("--json", "print the message's number and state as JSON")
    .action(
      async (
        ref: string,
        words: string[],
        flags: { file?: string; json?: boolean },
        cmd: Command,
      ) => {
        let body: string;
        if (words.length > 0) body = words.join(" ");
        else if (flags.file !== undefined) {
          try {
            body = await readFile(flags.file, "utf8");
          } catch {
            throw new UsageError(
              `cannot read ${cleanLine(flags.file)}`,
              "give a readable file to --file",
            );
          }
        } else if (!process.stdin.isTTY) body = await readStdin();
        else
          throw new UsageError(
            "no message was given",
            "give it as arguments, with --file, or on stdin",
          );
        const tasks = await openTasks(cmd);
        const id = await tasks.resolve(ref);
        const message = await tasks.send(id, body);
        if (flags.json === true) printJson({ id, n: message.n, state: message.state });
        else process.stdout.write(`sent message ${message.n} to ${id}\n`);
      },
    );
}
