// One run of the agent, in six phases: open the capture files (its transcript and its log);
// spawn it in a process group of its own, its prompt fed and its output captured from the first
// byte; arm the stops (its timeout and the runner's own stop, each SIGTERM to the group, the
// grace, then SIGKILL); await its exit; reap what it left running; and drain its output.
import type { PhaseTrace } from "../lang/index.js";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { open, rm, type FileHandle } from "node:fs/promises";
import type { Writable } from "node:stream";
import { exitCodeOf } from "../lang/index.js";
import { LIMITS, RESULT_FILES, cleanLine } from "../protocol/index.js";
import { captureOutput, type Capture, type Captured } from "./captureOutput.js";
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
  /** Times the run's steps when the host asked for a trace. */
  readonly trace: PhaseTrace;
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
  /**
   * Awaited once the agent has exited and before its leftovers are stopped: the runner's own
   * work on the workspace (a checkpoint in progress) finishes rather than be stopped with them.
   */
  readonly settle?: () => Promise<void>;
  readonly progress: (line: string) => void;
  readonly io?: AgentIo;
}

/** How the agent's process ended, with what it left: its captures, what was reaped, warnings. */
export interface AgentProcessEnd {
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

/** Runs the agent to its end. Rejects with AgentStartError when it cannot start at all. */
export async function superviseAgent(request: SuperviseRequest): Promise<AgentProcessEnd> {
  const { trace } = request;
  const files = await openCaptureFiles(request);
  // The clock starts before the call: Node's spawn forks and waits for the exec before it
  // returns, and that wait is most of what starting the agent costs.
  const spawned = trace.start("agent: spawn");
  const agent = await spawnInGroup(request, files).finally(spawned);
  const stops = armStops(request, agent.pgid);
  const exit = await trace.around(
    "agent: run to its exit",
    awaitExit(request, agent.exited, stops),
  );
  await trace.around("agent: settle the checkpoints", request.settle?.() ?? Promise.resolve());
  const reap = await trace.around("agent: reap stragglers", reapLeftovers(request, agent.pgid));
  const drained = await trace.around("agent: drain its output", drain(agent));
  return {
    ...exit,
    transcript: drained.transcript,
    log: drained.log,
    lastLine: agent.lastLine.value(),
    reaped: reap.reaped,
    warnings: [...reap.warnings, ...drained.warnings],
  };
}

interface CaptureFiles {
  readonly transcript: FileHandle;
  readonly log: FileHandle;
}

/** The agent once spawned: its group, its exit, and its output as it is captured. */
interface Spawned {
  readonly pgid: number;
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>;
  readonly transcript: Capture;
  readonly log: Capture;
  readonly lastLine: LastLine;
  /** When the output last moved. */
  readonly activity: { at: number };
}

/** Which of a run's stops fired, and how to disarm them once the agent is gone. */
interface Stops {
  readonly fired: { timedOut: boolean; stopped: boolean };
  readonly disarm: () => void;
}

/** Opens the transcript and the log: afresh for a first run, to append to for a further one. */
async function openCaptureFiles(request: SuperviseRequest): Promise<CaptureFiles> {
  const flags = request.append === undefined ? "w" : "a";
  const transcript = await open(request.transcriptPath, flags, 0o600);
  const log = await open(request.logPath, flags, 0o600).catch(async (error: unknown) => {
    await transcript.close();
    throw error;
  });
  return { transcript, log };
}

/**
 * Spawns the agent in a new session and process group, so that the whole agent can be
 * signalled at once, then feeds its stdin and captures its output before anything is awaited.
 */
async function spawnInGroup(request: SuperviseRequest, files: CaptureFiles): Promise<Spawned> {
  const [program, ...args] = request.argv;
  const child = spawn(program, args, {
    cwd: request.cwd,
    env: request.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const pgid = child.pid;
  if (pgid === undefined) {
    // Listened for before anything is awaited: Node emits the error on the next tick.
    const failed = once(child, "error") as Promise<[Error]>;
    await Promise.all([files.transcript.close(), files.log.close()]);
    // A further run's files hold the earlier runs' output, which stays.
    if (request.append === undefined) {
      await Promise.all([rm(request.transcriptPath), rm(request.logPath)]);
    }
    const [error] = await failed;
    throw new AgentStartError(
      `the agent's command ${cleanLine(program)} could not start: ${cleanLine(error.message)}`,
    );
  }
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const { io, append } = request;
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
  const activity = { at: Date.now() };
  const lastLine = new LastLine(LIMITS.agentResultBytes);
  const transcriptRoom = append?.transcriptBytes ?? LIMITS.transcriptBytes;
  const transcript = captureOutput(child.stdout, files.transcript, transcriptRoom, (chunk) => {
    activity.at = Date.now();
    lastLine.push(chunk);
    io?.stdout(chunk);
  });
  const logRoom = append?.logBytes ?? LIMITS.logBytes;
  const log = captureOutput(child.stderr, files.log, logRoom, (chunk) => {
    activity.at = Date.now();
    io?.stderr(chunk);
  });
  return { pgid, exited, transcript, log, lastLine, activity };
}

/** Arms the agent's timeout and the runner's own stop; the first to fire stops the group. */
function armStops(request: SuperviseRequest, pgid: number): Stops {
  const fired = { timedOut: false, stopped: false };
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
          fired.timedOut = true;
          stopGroup(`the agent ran past its timeout of ${request.timeoutMs / 1000} s`);
        })
      : () => undefined;
  const onStop = (): void => {
    fired.stopped = true;
    stopGroup("the runner was told to stop");
  };
  if (request.stop.aborted) onStop();
  else request.stop.addEventListener("abort", onStop, { once: true });
  return {
    fired,
    disarm: () => {
      cancelTimeout();
      clearTimeout(killTimer);
      request.stop.removeEventListener("abort", onStop);
    },
  };
}

/** Awaits the agent's exit, then disarms the stops. */
async function awaitExit(
  request: SuperviseRequest,
  exited: Spawned["exited"],
  stops: Stops,
): Promise<{ exitCode: number; timedOut: boolean; stopped: boolean }> {
  const [code, signal] = await exited.finally(stops.disarm);
  const exitCode = exitCodeOf(code, signal);
  request.progress(`the agent exited with ${exitCode}`);
  return { exitCode, ...stops.fired };
}

/** Stops what the agent left running; without /proc, at least its own process group. */
async function reapLeftovers(
  request: SuperviseRequest,
  pgid: number,
): Promise<{ reaped: Reaped; warnings: string[] }> {
  const warnings: string[] = [];
  let reaped: Reaped;
  try {
    reaped = await reapStragglers({ scope: request.reapScope(pgid), graceMs: request.killGraceMs });
  } catch (error) {
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
  return { reaped, warnings };
}

/**
 * Reads the agent's output to its end. With every process the runner found gone, the pipes end
 * unless one it could not find holds them; reading stops after PIPE_IDLE_MS of silence, or after
 * PIPE_DRAIN_MAX_MS, so such a process cannot keep the runner waiting.
 */
async function drain(
  output: Spawned,
): Promise<{ transcript: Captured; log: Captured; warnings: string[] }> {
  const drained = Promise.all([output.transcript.done, output.log.done]);
  const started = Date.now();
  output.activity.at = started;
  const idle = new Promise<"idle">((resolve) => {
    const timer = setInterval(() => {
      const now = Date.now();
      if (now - output.activity.at <= PIPE_IDLE_MS && now - started <= PIPE_DRAIN_MAX_MS) return;
      clearInterval(timer);
      resolve("idle");
    }, PIPE_POLL_MS);
    void drained.then(() => {
      clearInterval(timer);
    });
  });
  const warnings: string[] = [];
  if ((await Promise.race([drained, idle])) === "idle") {
    output.transcript.stop();
    output.log.stop();
    warnings.push(
      "a process the runner could not find still held the agent's output open; " +
        "the output was cut off where the runner stopped reading",
    );
  }
  const [transcript, log] = await drained;
  for (const [name, captured] of [
    [RESULT_FILES.transcript, transcript],
    [RESULT_FILES.log, log],
  ] as const) {
    if (captured.failure !== undefined) {
      warnings.push(`${name} was cut short: ${cleanLine(captured.failure)}`);
    }
  }
  return { transcript, log, warnings };
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Nothing left in the group.
  }
}
