// The setup's commands: each run by `sh -c` in the workspace, in order, in a process group of its
// own, under one time limit for them all. When a command ends, its whole group is killed: nothing
// setup started may still run when the agent starts, as its environment holds setup's variables.
import { spawn } from "node:child_process";
import { cleanLine, SETUP_LIMITS } from "../protocol/index.js";
import { GUEST_SETUP_LIMITS } from "./limits.js";
import { LineSplitter } from "./lineSplitter.js";

export type SetupStream = "stdout" | "stderr";

export interface SetupCommandsInput {
  readonly commands: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** When the time for the whole setup is up (performance.now() clock). */
  readonly endsAt: number;
  readonly onLine: (stream: SetupStream, text: string) => void;
  /** Aborts when the runner is told to stop. */
  readonly stop: AbortSignal;
}

export type CommandsOutcome =
  | { readonly kind: "ok" }
  | { readonly kind: "failed"; readonly index: number; readonly exitCode: number }
  | { readonly kind: "timed_out"; readonly index: number }
  | { readonly kind: "stopped"; readonly index: number }
  | { readonly kind: "not_started"; readonly index: number; readonly why: string };

/** Sends a signal to a whole process group; a group already gone is no error. */
function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone already, or nothing in it the runner may signal.
  }
}

interface CommandEnd {
  readonly exitCode: number;
  readonly why?: "timed_out" | "stopped";
}

/** Runs one command to its end, or stops its group at the deadline or on `stop`. */
function runOne(command: string, input: SetupCommandsInput): Promise<CommandEnd | string> {
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], {
      cwd: input.cwd,
      env: { ...input.env },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let why: CommandEnd["why"];
    let killTimer: NodeJS.Timeout | undefined;
    const stopGroup = (reason: "timed_out" | "stopped"): void => {
      if (why !== undefined || child.pid === undefined) return;
      why = reason;
      signalGroup(child.pid, "SIGTERM");
      killTimer = setTimeout(() => {
        if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
      }, GUEST_SETUP_LIMITS.killGraceMs);
    };
    const deadline = setTimeout(
      () => {
        stopGroup("timed_out");
      },
      Math.max(0, input.endsAt - performance.now()),
    );
    const onStop = (): void => {
      stopGroup("stopped");
    };
    input.stop.addEventListener("abort", onStop, { once: true });
    const splitters = (["stdout", "stderr"] as const).map((stream) => {
      const splitter = new LineSplitter(
        SETUP_LIMITS.outputLineBytes,
        (line) => {
          input.onLine(stream, cleanLine(line.toString("utf8")));
        },
        () => {
          input.onLine(stream, `[a line over ${SETUP_LIMITS.outputLineBytes} bytes, left out]`);
        },
      );
      child[stream].on("data", (chunk: Buffer) => {
        splitter.push(chunk);
      });
      return { stream, splitter };
    });
    child.once("error", (error) => {
      clearTimeout(deadline);
      input.stop.removeEventListener("abort", onStop);
      resolve(cleanLine(error.message));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(deadline);
      clearTimeout(killTimer);
      input.stop.removeEventListener("abort", onStop);
      // What the command left running in its group goes with it.
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
      const drained = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, GUEST_SETUP_LIMITS.drainMs);
      let open = 2;
      const finish = (): void => {
        clearTimeout(drained);
        for (const { splitter } of splitters) splitter.end();
        const exitCode = code ?? (signal === null ? 1 : 128 + signalNumber(signal));
        resolve(why === undefined ? { exitCode } : { exitCode, why });
      };
      const closed = (): void => {
        open -= 1;
        if (open === 0) finish();
      };
      if (child.stdout.closed) closed();
      else child.stdout.once("close", closed);
      if (child.stderr.closed) closed();
      else child.stderr.once("close", closed);
    });
  });
}

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };

function signalNumber(signal: NodeJS.Signals): number {
  return SIGNAL_NUMBERS[signal] ?? 0;
}

/** Runs the commands in order; stops at the first that fails, times out or cannot start. */
export async function runSetupCommands(input: SetupCommandsInput): Promise<CommandsOutcome> {
  for (const [index, command] of input.commands.entries()) {
    if (input.stop.aborted) return { kind: "stopped", index };
    if (performance.now() >= input.endsAt) return { kind: "timed_out", index };
    const end = await runOne(command, input);
    if (typeof end === "string") return { kind: "not_started", index, why: end };
    if (end.why === "timed_out") return { kind: "timed_out", index };
    if (end.why === "stopped") return { kind: "stopped", index };
    if (end.exitCode !== 0) return { kind: "failed", index, exitCode: end.exitCode };
  }
  return { kind: "ok" };
}
