// `warden logs`: what a task's sandbox wrote, cleaned for the terminal.
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { basename, join } from "node:path";
import { HOST_FILES, SETUP_LOG, taskLayout } from "../host/index.js";
import { localizeLineTime } from "../lang/index.js";
import { cleanLine, RESULT_FILES } from "../protocol/index.js";
import { isRealDir, type TaskState, type Tasks } from "../store/index.js";
import type { FleetStore } from "../fleet/index.js";
import { followFile } from "./followFile.js";
import { parseCount } from "./parseValues.js";
import { withStore } from "./context.js";
import { printJson } from "./taskView.js";
import { LocalOnlyVerbError, NothingToShowError, UsageError } from "./cliErrors.js";
import { standardOut } from "./standardStreams.js";

/** One line printed: a transcript line holding a long tool output fits, a flood does not. */
const MAX_LINE_BYTES = 1024 * 1024;

/** The lines of a stream, each cut to `max` bytes, never holding more than that in memory. */
async function* boundedLines(
  stream: AsyncIterable<Buffer>,
  max: number,
): AsyncGenerator<{ bytes: Buffer; cut: boolean }> {
  let parts: Buffer[] = [];
  let size = 0;
  let cut = false;
  for await (const chunk of stream) {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      const room = max - size;
      if (end - start > room) cut = true;
      const piece = chunk.subarray(start, start + Math.min(room, end - start));
      if (piece.length > 0) {
        parts.push(piece);
        size += piece.length;
      }
      if (newline === -1) break;
      const line = Buffer.concat(parts, size);
      // A CRLF ends a line as a newline does.
      yield { bytes: line.at(-1) === 0x0d ? line.subarray(0, -1) : line, cut };
      parts = [];
      size = 0;
      cut = false;
      start = newline + 1;
    }
  }
  if (size > 0 || cut) yield { bytes: Buffer.concat(parts, size), cut };
}

/**
 * The lines to print, for `--tail n`: held until everything written so far has been read, of
 * which only the last n are printed; after that (`--follow`), each line as it comes. Without
 * `--tail`, every line at once.
 */
class TailedLines<Line> {
  #held: Line[] | undefined;

  constructor(
    private readonly keep: number | undefined,
    private readonly print: (line: Line) => void,
  ) {
    this.#held = keep === undefined ? undefined : [];
  }

  add(line: Line): void {
    if (this.#held === undefined) {
      this.print(line);
      return;
    }
    this.#held.push(line);
    if (this.#held.length > (this.keep ?? 0)) this.#held.shift();
  }

  /** Prints what is held; from now on each line is printed as it is added. */
  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const line of held) this.print(line);
  }
}

interface LogFlags {
  transcript?: boolean;
  agentLog?: boolean;
  proxyLog?: boolean;
  hostLog?: boolean;
  json?: boolean;
  setupLog?: boolean;
  follow?: boolean;
  tail?: string;
}

/** The states in which a task's logs may still grow: someone runs it, or may yet. */
const STILL_WRITTEN: readonly TaskState[] = ["created", "queued", "running"];

export function registerLogs(program: Command): void {
  program
    .command("logs")
    .summary("print a task's logs")
    .description(
      "Print the guest log of a task (the runner's progress and warden's notes), or with a flag " +
        "the agent's transcript (its stdout), its stderr, the proxy's decisions, or the output of " +
        "a detached run. Text from the sandbox is cleaned before it is printed. A fleet's task " +
        "(--store) has its guest log, transcript and stderr once it has ended, from its " +
        "worker's results; while it runs, `warden watch` shows its events.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--transcript", "the agent's stdout (transcript.jsonl)")
    .option("--agent-log", "the agent's stderr (agent.log)")
    .option("--proxy-log", "the egress proxy's decisions (proxy.log)")
    .option("--host-log", "the output of a detached run (host.log)")
    .option("--setup-log", "the output of the task's setup (setup.log)")
    .option("--json", "print each line as a JSON object")
    .option(
      "-f, --follow",
      "keep printing what is added until the task has finished (a result log appears at its end)",
    )
    .option("-n, --tail <n>", "print only the last n lines (with --follow, then what is added)")
    .action(async (ref: string, flags: LogFlags, cmd: Command) => {
      const chosen = [
        flags.transcript,
        flags.agentLog,
        flags.proxyLog,
        flags.hostLog,
        flags.setupLog,
      ].filter((f) => f === true).length;
      if (chosen > 1)
        throw new UsageError("more than one log was asked for", { hint: "pick one log flag" });
      const tail = flags.tail === undefined ? undefined : parseCount(flags.tail, "--tail");
      await withStore(cmd, async (open) =>
        open.kind === "local"
          ? localLogs(open.tasks, ref, flags, tail)
          : fleetLogs(open.fleet, ref, flags, tail),
      );
    });
}

/** Prints the lines of a log file, cleaned, as `logs` prints them; `proxy` localizes times. */
async function printLines(
  stream: AsyncIterable<Buffer>,
  flags: LogFlags,
  lines: TailedLines<{ text: string; cut: boolean }>,
  proxy: boolean,
): Promise<void> {
  for await (const { bytes, cut } of boundedLines(stream, MAX_LINE_BYTES)) {
    const clean = cleanLine(bytes);
    // The proxy log's times are ISO 8601 in UTC; text output shows them as every time is.
    const text = flags.json !== true && proxy ? localizeLineTime(clean, Date.now()) : clean;
    lines.add({ text: text + (cut ? " [cut]" : ""), cut });
  }
  lines.release();
}

function lineSink(flags: LogFlags, tail: number | undefined) {
  return new TailedLines<{ text: string; cut: boolean }>(tail, ({ text, cut }) => {
    if (flags.json === true) printJson({ line: text, ...(cut ? { cut } : {}) });
    else standardOut.write(text + "\n");
  });
}

/**
 * A fleet task's log: the one its worker kept in the fleet's results when the task ended (a
 * running task's is on its worker, and `watch` shows its events meanwhile). --follow waits for
 * the end, then prints it.
 */
async function fleetLogs(
  fleet: FleetStore,
  ref: string,
  flags: LogFlags,
  tail: number | undefined,
): Promise<void> {
  if (flags.proxyLog === true || flags.hostLog === true || flags.setupLog === true) {
    throw new LocalOnlyVerbError(
      "--proxy-log, --host-log and --setup-log stay on the worker that ran a fleet's task",
      { hint: "see the guest log, --transcript or --agent-log, or the events with `warden watch`" },
    );
  }
  const { withResult, resultObject } = await import("../fleet/index.js");
  const id = await fleet.resolve(ref);
  if (flags.follow === true) await fleet.wait(id);
  const details = await fleet.get(id);
  const name =
    flags.transcript === true
      ? RESULT_FILES.transcript
      : flags.agentLog === true
        ? RESULT_FILES.log
        : HOST_FILES.guestLog;
  if (details.terminal === undefined) {
    throw new NothingToShowError(
      `task ${id} is ${details.state} in the fleet: its ${name} comes back when it ends`,
      { hint: `follow its events with \`warden watch ${id}\`, or wait for the log with --follow` },
    );
  }
  const exists = (await fleet.objects.info(resultObject(details, name))) !== null;
  if (!exists) {
    throw new NothingToShowError(`task ${id} has no ${name} in the fleet`, {
      hint: "its worker kept none; see its end with `warden show`",
    });
  }
  await withResult(fleet, details, name, async (path) => {
    const stream = followFile(path, { done: () => Promise.resolve(true) });
    await printLines(stream, flags, lineSink(flags, tail), false);
  });
}

/** This machine's task's log, followed while the task may still write it. */
async function localLogs(
  tasks: Tasks,
  ref: string,
  flags: LogFlags,
  tail: number | undefined,
): Promise<void> {
  const id = await tasks.resolve(ref);
  const layout = taskLayout(tasks.dataDir, id);
  const file =
    flags.transcript === true
      ? layout.result(RESULT_FILES.transcript)
      : flags.agentLog === true
        ? layout.result(RESULT_FILES.log)
        : flags.proxyLog === true
          ? layout.proxyLog
          : flags.hostLog === true
            ? layout.hostLog
            : flags.setupLog === true
              ? join(layout.results, SETUP_LOG)
              : layout.guestLog;
  const missing = (): NothingToShowError =>
    new NothingToShowError(`task ${id} has no ${basename(file)}`, {
      hint: "logs appear once the task has run; see its state with `warden show`",
    });
  // Every log is inside results/: a link in its place is refused (PLANTED_LINK), and
  // followFile never opens a log through a link.
  isRealDir(layout.results);
  if (flags.follow !== true && !existsSync(file)) throw missing();
  const lines = lineSink(flags, tail);
  const stream = followFile(file, {
    done: async () => flags.follow !== true || !STILL_WRITTEN.includes((await tasks.get(id)).state),
    // Without --follow the last line may still come without its newline, after the end.
    ...(flags.follow === true
      ? {
          caughtUp: () => {
            lines.release();
          },
        }
      : {}),
  });
  await printLines(stream, flags, lines, file === layout.proxyLog);
  if (flags.follow === true && !existsSync(file)) throw missing();
}
