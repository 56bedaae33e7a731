// `warden serve`: the dashboard of a data directory in a browser.
import type { Command } from "commander";
import { loadConfig } from "../config/index.js";
import { UsageError } from "../protocol/index.js";
import { BackgroundRunError } from "./cliErrors.js";
import { collect, openTasks } from "./context.js";
import { detach } from "./detach.js";
import { printJson } from "./taskView.js";
import {
  DEFAULT_LISTEN,
  parseListen,
  readOrMakeToken,
  readPageFiles,
  rotateToken,
  startDueResumer,
  startNotifier,
  startWebServer,
} from "../web/index.js";
import { standardOut, standardError } from "./standardStreams.js";

/** A webhook is an http(s) URL; anything else is refused before the server starts. */
function checkWebhook(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new UsageError(`--webhook ${JSON.stringify(url)} is not an http(s) URL`, {
      hint: "give the full address, such as https://hooks.example.com/warden",
    });
  }
}

interface ServeFlags {
  listen: string;
  public?: boolean;
  rotateToken?: boolean;
  json?: boolean;
  notify?: string[];
  webhook?: string[];
}

export function registerServe(program: Command): void {
  program
    .command("serve")
    .summary("a web dashboard to watch, steer and approve tasks")
    .description(
      "Serve a web dashboard of the data directory: the tasks live, each task's events, " +
        "approvals, messages, cancel and changes. It listens on 127.0.0.1 unless --listen says " +
        "otherwise, and every request needs the access token, kept 0600 in the data directory " +
        "and printed with the address once. Tasks run whether it is up or not, and it can stop " +
        "and start at any time; while it is up it resumes, in the background, each suspended " +
        "task whose usage limit has reset when the process that ran it is gone.",
    )
    .option("--listen <address:port>", "where to listen", DEFAULT_LISTEN)
    .option("--public", "allow an address other machines can reach (the page has no TLS)")
    .option("--rotate-token", "make a new access token first; the old one stops working")
    .option(
      "--notify <command>",
      "run COMMAND (by sh -c) with each notification as JSON on stdin: a task ended, failed, hit a bound, or waits for an approval (repeatable)",
      collect,
    )
    .option("--webhook <url>", "POST each notification's JSON to URL (repeatable)", collect)
    .option("--json", "print the address as JSON: url, port")
    .action(async (flags: ServeFlags, cmd: Command) => {
      const listen = parseListen(flags.listen, flags.public === true);
      const tasks = await openTasks(cmd);
      const token =
        flags.rotateToken === true
          ? await rotateToken(tasks.dataDir)
          : await readOrMakeToken(tasks.dataDir);
      const page = await readPageFiles();
      // Notifications run commands on this machine: only the user's own config may name them.
      const config = (await loadConfig()).values;
      const commands = flags.notify ?? config.notify ?? [];
      const webhooks = flags.webhook ?? config.webhook ?? [];
      for (const url of webhooks) checkWebhook(url);
      if (!listen.loopback) {
        standardError.write(
          "warning: the dashboard speaks plain HTTP; anyone on the network path can read the token. Put a TLS proxy in front of it.\n",
        );
      }
      const runInBackground = async (id: string): Promise<void> => {
        const detached = await detach(tasks, id);
        if (detached.failed !== undefined) {
          throw new BackgroundRunError(
            `the background run of ${id} ended before it started the task`,
            { hint: `see ${detached.log}, fix what it says, then run \`warden start ${id}\`` },
          );
        }
      };
      const server = await startWebServer({
        tasks,
        host: listen.host,
        port: listen.port,
        token,
        page,
        runInBackground,
      });
      // Suspended tasks whose usage limit has reset, and whose own process is gone.
      const resumer = startDueResumer(tasks, {
        runInBackground,
        onProblem: (message) => {
          standardError.write(`warden serve: ${message}\n`);
        },
      });
      const notifier =
        commands.length + webhooks.length === 0
          ? undefined
          : await startNotifier(tasks, {
              commands,
              webhooks,
              onProblem: (message) => {
                standardError.write(`warden serve: ${message}\n`);
              },
            });
      if (flags.json === true) printJson({ url: server.url, port: server.port });
      else standardOut.write(`warden serve: open ${server.url}\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          resolve();
        };
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
      resumer.close();
      await Promise.all([server.close(), notifier?.close()]);
    });
}
