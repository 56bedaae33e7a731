// `warden exec`: run a command inside a running task's sandbox, as the agent would run it.
import { constants } from "node:os";
import type { Command } from "commander";
import { connectInside, exitStatus, insideTarget, runInside } from "../host/index.js";
import { FRAME, INSIDE_VERSION } from "../protocol/index.js";
import { openTasks } from "./context.js";
import { localOutput, sendStdin } from "./insideStreams.js";

export function registerExec(program: Command): void {
  program
    .command("exec")
    .summary("run a command inside a running task's sandbox")
    .description(
      "Run COMMAND inside the sandbox of a running task that allows it (created with " +
        "--allow-exec or --debug): as the agent's uid, within its bounds, behind its network " +
        "gate, in its working directory, with its environment. Its output streams here as it " +
        "comes; stdin is sent to it when it is not a terminal; warden exits with its exit code " +
        "(128 + the signal's number when a signal ended it). Each use is recorded in the task's " +
        "events. Put the command after `--`.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .argument("<command...>", "the command and its arguments, after `--`")
    .action(async (ref: string, argv: string[], _flags: unknown, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const target = await insideTarget(tasks, ref, "exec");
      const link = await connectInside(target);
      const running = runInside(link, { v: INSIDE_VERSION, kind: "exec", argv }, localOutput(link));
      if (process.stdin.isTTY) link.write(FRAME.stdinEnd);
      else sendStdin(link);
      try {
        const exit = await running;
        process.exitCode = exitStatus(exit, constants.signals);
      } finally {
        link.destroy();
        process.stdin.destroy();
      }
    });
}
