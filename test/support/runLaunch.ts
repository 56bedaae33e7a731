// Runs one agent launch plan as the runner would, outside any sandbox: its argv (never a
// shell), its environment over the test's own, its stdin, and its stdout read line by line
// into events as it arrives. For the adapter tests with the real CLIs.
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { createInterface } from "node:readline";
import type { AgentLaunch } from "../../src/agents/adapter.js";
import type { AgentEvent, StreamReader } from "../../src/agents/agentEvent.js";

/** What the run came to, as the runner would know it. */
export interface LaunchRun {
  readonly events: AgentEvent[];
  readonly exitCode: number;
  /** The last stdout line, when it was a JSON object. */
  readonly lastLine: Record<string, unknown> | undefined;
  /** The last `result` event the reader gave. */
  readonly lastResult: Extract<AgentEvent, { type: "result" }> | undefined;
  /** The start of stderr, for assertion messages. */
  readonly stderr: string;
}

/** The most stderr kept for a message: enough to see why a CLI failed. */
const STDERR_KEPT = 64 * 1024;

function jsonObject(line: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(line) as unknown;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `launch` in `cwd` to its exit (SIGKILL after `timeoutMs`), reading with `reader`. */
export async function runLaunch(
  launch: AgentLaunch,
  options: {
    readonly cwd: string;
    readonly env: Readonly<Record<string, string>>;
    readonly reader: StreamReader;
    readonly timeoutMs: number;
  },
): Promise<LaunchRun> {
  const [program, ...args] = launch.argv;
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: { ...options.env, ...launch.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = new Promise<number>((done) => {
    child.once("exit", (code, signal) => {
      done(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    if (stderr.length < STDERR_KEPT) stderr += chunk;
  });
  child.stdin.end(launch.stdin);
  const events: AgentEvent[] = [];
  let lastLine: Record<string, unknown> | undefined;
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    events.push(...options.reader.line(line));
    lastLine = jsonObject(line);
  }
  events.push(...options.reader.end());
  const exitCode = await exited;
  clearTimeout(timer);
  const results = events.filter((e) => e.type === "result");
  return { events, exitCode, lastLine, lastResult: results.at(-1), stderr };
}
