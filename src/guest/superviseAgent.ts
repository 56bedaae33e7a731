// Starts the agent in a process group of its own, feeds it the prompt, captures its output,
// stops it at its timeout or when the runner is stopped (SIGTERM to the group, the grace,
// SIGKILL), and afterwards makes sure nothing it started still runs.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { open, rm } from "node:fs/promises";
import { constants } from "node:os";
import type { Writable } from "node:stream";
import { LIMITS, RESULT_FILES, cleanLine } from "../protocol/index.js";
import { captureOutput, type Captured } from "./captureOutput.js";
import { AgentStartError } from "./errors.js";
import { LastLine } from "./lastLine.js";
import { setLongTimeout } from "./longTimeout.js";
import {
  describeProcesses,
  reapStragglers,
  type ReapScope,
  type Reaped,
} from "./reapStragglers.js";

/**
 * Once everything the runner could find is stopped, the agent's output pipes end at once unless
 * a process it could not find still holds them. The runner stops reading after this much
 * silence, or after PIPE_DRAIN_MAX_MS whatever flows, and says so.
 */
const PIPE_IDLE_MS = 5_000;
const PIPE_DRAIN_MAX_MS = 60_000;
const PIPE_POLL_MS = 100;

/**
 * What else the runner does with a running agent: reads its stdout as it comes, and, for an
 * agent that takes further messages, keeps its stdin open and writes to it.
 */
export interface AgentIo {
  /** Stdin stays open after `stdin` is written; `started` gets it, and closes it to end the run. */
  readonly keepStdinOpen: boolean;
  /** The agent started; its stdin, with the first write already made. */
  started(stdin: Writable): void;
  /** A chunk of the agent's stdout, as it arrives (also after the agent exited). Never throws. */
  stdout(chunk: Buffer): void;
  /** A chunk of the agent's stderr, likewise. Never throws. */
  stderr(chunk: Buffer): void;
  /** The agent exited; its output may still be arriving. */
  exited(): void;
}

export interface SuperviseRequest {
  readonly argv: readonly [string, ...string[]];
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: string;
  readonly cwd: string;
  /** 0 = no timeout. */
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  readonly transcriptPath: string;
  readonly logPath: string;
  /**
   * Present for a further run of the same task: its output goes after the earlier runs', in
   * the room they left.
   */
  readonly append?: { readonly transcriptBytes: number; readonly logBytes: number };
  /** Aborts when the runner itself is told to stop. */
  readonly stop: AbortSignal;
  /** Which processes count as the agent's once it has exited, given its process group. */
  readonly reapScope: (pgid: number) => ReapScope;
  readonly progress: (line: string) => void;
  readonly io?: AgentIo;
}

export interface AgentOutcome {
  /** The exit code, or 128 + the signal number for an agent a signal ended. */
  readonly exitCode: number;
  readonly timedOut: boolean;
  /** The runner was told to stop while the agent ran. */
  readonly stopped: boolean;
  readonly transcript: Captured;
  readonly log: Captured;
  /** The last line of the agent's stdout, when one was short enough to keep. */
  readonly lastLine: Buffer | undefined;
  readonly reaped: Reaped;
  readonly warnings: readonly string[];
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Nothing left in the group.
  }
}

function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal === null ? undefined : constants.signals[signal];
  return 128 + (number ?? 0);
}

/**
 * Resolves once the output has been silent for PIPE_IDLE_MS, or PIPE_DRAIN_MAX_MS have passed,
 * whichever is first; never resolves once `signal` aborts.
 */
function whenIdle(lastActivity: () => number, signal: AbortSignal): Promise<"idle"> {
  return new Promise((resolve) => {
    const started = Date.now();
    const timer = setInterval(() => {
      const now = Date.now();
      if (now - lastActivity() > PIPE_IDLE_MS || now - started > PIPE_DRAIN_MAX_MS) {
        clearInterval(timer);
        resolve("idle");
      }
    }, PIPE_POLL_MS);
    signal.addEventListener(
      "abort",
      () => {
        clearInterval(timer);
      },
      { once: true },
    );
  });
}

/** Runs the agent to its end. Rejects with AgentStartError when it cannot start at all. */
export async function superviseAgent(request: SuperviseRequest): Promise<AgentOutcome> {
  const [program, ...args] = request.argv;
  const { append } = request;
  const flags = append === undefined ? "w" : "a";
  const transcriptFile = await open(request.transcriptPath, flags, 0o600);
  const logFile = await open(request.logPath, flags, 0o600).catch(async (error: unknown) => {
    await transcriptFile.close();
    throw error;
  });
  const child = spawn(program, args, {
    cwd: request.cwd,
    env: request.env,
    stdio: ["pipe", "pipe", "pipe"],
    // A new session and process group, so the whole agent can be signalled at once.
    detached: true,
  });
  const pgid = child.pid;
  if (pgid === undefined) {
    // Listened for before anything is awaited: Node emits the error on the next tick.
    const failed = once(child, "error") as Promise<[Error]>;
    await Promise.all([transcriptFile.close(), logFile.close()]);
    // A further run's files hold the earlier runs' output, which stays.
    if (append === undefined) {
      await Promise.all([rm(request.transcriptPath), rm(request.logPath)]);
    }
    const [error] = await failed;
    throw new AgentStartError(
      `the agent's command ${cleanLine(program)} could not start: ${cleanLine(error.message)}`,
    );
  }
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const { io } = request;
  child.once("exit", () => {
    // An open stdin to a process that is gone would only keep the runner's event loop alive.
    if (io?.keepStdinOpen === true) child.stdin.destroy();
    io?.exited();
  });

  // An agent that never reads its stdin must not fail the runner with EPIPE.
  child.stdin.on("error", () => undefined);
  if (io?.keepStdinOpen === true) {
    child.stdin.write(request.stdin);
    io.started(child.stdin);
  } else {
    child.stdin.end(request.stdin);
  }

  let lastActivity = Date.now();
  const lastLine = new LastLine(LIMITS.agentResultBytes);
  const transcript = captureOutput(
    child.stdout,
    transcriptFile,
    append?.transcriptBytes ?? LIMITS.transcriptBytes,
    (chunk) => {
      lastActivity = Date.now();
      lastLine.push(chunk);
      io?.stdout(chunk);
    },
  );
  const log = captureOutput(child.stderr, logFile, append?.logBytes ?? LIMITS.logBytes, (chunk) => {
    lastActivity = Date.now();
    io?.stderr(chunk);
  });

  let timedOut = false;
  let stopped = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stopGroup = (why: string): void => {
    if (killTimer !== undefined) return;
    request.progress(`${why}: sending SIGTERM to the agent's process group`);
    signalGroup(pgid, "SIGTERM");
    killTimer = setTimeout(() => {
      request.progress("the agent outlived its grace: sending SIGKILL to its process group");
      signalGroup(pgid, "SIGKILL");
    }, request.killGraceMs);
  };
  const cancelTimeout =
    request.timeoutMs > 0
      ? setLongTimeout(request.timeoutMs, () => {
          timedOut = true;
          stopGroup(`the agent ran past its timeout of ${request.timeoutMs / 1000} s`);
        })
      : () => undefined;
  const onStop = (): void => {
    stopped = true;
    stopGroup("the runner was told to stop");
  };
  if (request.stop.aborted) onStop();
  else request.stop.addEventListener("abort", onStop, { once: true });

  let code: number | null;
  let signal: NodeJS.Signals | null;
  try {
    [code, signal] = await exited;
  } finally {
    cancelTimeout();
    clearTimeout(killTimer);
    request.stop.removeEventListener("abort", onStop);
  }
  const exitCode = exitCodeOf(code, signal);
  request.progress(`the agent exited with ${exitCode}`);

  const warnings: string[] = [];
  let reaped: Reaped;
  try {
    reaped = await reapStragglers({ scope: request.reapScope(pgid), graceMs: request.killGraceMs });
  } catch (error) {
    // Without /proc the runner can still end the agent's own process group.
    signalGroup(pgid, "SIGKILL");
    reaped = { stopped: [], unreachable: [] };
    warnings.push(
      `could not look for processes the agent left running: ${cleanLine(String(error))}`,
    );
  }
  if (reaped.stopped.length > 0) {
    request.progress(`stopped what the agent left running: ${describeProcesses(reaped.stopped)}`);
  }
  if (reaped.unreachable.length > 0) {
    warnings.push(
      `processes the agent started could not be stopped: ${describeProcesses(reaped.unreachable)}`,
    );
  }

  // With every process the runner found gone, the pipes end unless one it could not find holds
  // them; reading stops after a silence, so such a process cannot keep the runner waiting.
  const drained = Promise.all([transcript.done, log.done]);
  lastActivity = Date.now();
  const watching = new AbortController();
  let first: "drained" | "idle";
  try {
    first = await Promise.race([
      drained.then(() => "drained" as const),
      whenIdle(() => lastActivity, watching.signal),
    ]);
  } finally {
    watching.abort();
  }
  if (first === "idle") {
    transcript.stop();
    log.stop();
    warnings.push(
      "a process the runner could not find still held the agent's output open; " +
        "the output was cut off where the runner stopped reading",
    );
  }
  const [transcriptCaptured, logCaptured] = await drained;
  for (const [name, captured] of [
    [RESULT_FILES.transcript, transcriptCaptured],
    [RESULT_FILES.log, logCaptured],
  ] as const) {
    if (captured.failure !== undefined) {
      warnings.push(`${name} was cut short: ${cleanLine(captured.failure)}`);
    }
  }
  return {
    exitCode,
    timedOut,
    stopped,
    transcript: transcriptCaptured,
    log: logCaptured,
    lastLine: lastLine.value(),
    reaped,
    warnings,
  };
}
