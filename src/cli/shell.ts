// `warden shell`: an interactive shell inside a running task's sandbox, on a terminal of its own.
import { constants } from "node:os";
import type { Command } from "commander";
import { connectInside, exitStatus, insideTarget, runInside } from "../host/index.js";
import { FRAME, INSIDE_VERSION } from "../protocol/index.js";
import { UsageError } from "./cliErrors.js";
import { openTasks } from "./context.js";
import { localOutput, sendStdin } from "./insideStreams.js";
import { standardOut } from "./standardStreams.js";

/** A terminal's size when this process's own does not say: the classic 80 × 24. */
const DEFAULT_SIZE = { cols: 80, rows: 24 } as const;

/** $TERM when it is a plain name the sandbox's terminfo could know; otherwise none is sent. */
function termName(value: string | undefined): string | undefined {
  return value !== undefined && /^[A-Za-z0-9._+-]{1,64}$/.test(value) ? value : undefined;
}

export function registerShell(program: Command): void {
  program
    .command("shell")
    .summary("open a shell inside a running task's sandbox")
    .description(
      "Open an interactive shell (a login bash, else sh; or COMMAND after `--`) on a terminal " +
        "inside the sandbox of a running task that allows it (--allow-exec or --debug): as the " +
        "agent's uid, within its bounds, behind its network gate. The terminal follows this " +
        "one's size, and Ctrl-C reaches the command inside as on any terminal. Needs python3 " +
        "in the sandbox (the host's /usr) for the terminal. Each use is recorded in the task's " +
        "events.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .argument("[command...]", "a command to run instead of the shell, after `--`")
    .action(async (ref: string, argv: string[], _flags: unknown, cmd: Command) => {
      const stdin = process.stdin;
      const stdout = standardOut.stream();
      if (!stdin.isTTY || !stdout.isTTY) {
        throw new UsageError("warden shell needs a terminal on stdin and stdout", {
          hint: "run a command without one with `warden exec ID -- COMMAND`",
        });
      }
      const tasks = await openTasks(cmd);
      const target = await insideTarget(tasks, ref, "exec");
      const link = await connectInside(target);
      const size = () => ({
        cols: stdout.columns > 0 ? stdout.columns : DEFAULT_SIZE.cols,
        rows: stdout.rows > 0 ? stdout.rows : DEFAULT_SIZE.rows,
      });
      const term = termName(process.env.TERM);
      const running = runInside(
        link,
        {
          v: INSIDE_VERSION,
          kind: "shell",
          ...size(),
          ...(argv.length === 0 ? {} : { argv }),
          ...(term === undefined ? {} : { term }),
        },
        localOutput(link),
      );
      const resize = (): void => {
        link.writeJson(FRAME.resize, size());
      };
      stdout.on("resize", resize);
      stdin.setRawMode(true);
      sendStdin(link, stdin);
      try {
        const exit = await running;
        process.exitCode = exitStatus(exit, constants.signals);
      } finally {
        stdout.off("resize", resize);
        stdin.setRawMode(false);
        link.destroy();
        stdin.destroy();
      }
    });
}
