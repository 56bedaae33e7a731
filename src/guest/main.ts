#!/usr/bin/env node
// `warden-guest`: the runner every sandbox starts first. Results go to stdout as a tar archive,
// progress to stderr as plain lines that the host labels.
import { NO_TRACE, phaseTrace, TRACE_LINE, traceNow, type TracedPhase } from "../lang/index.js";
import { WardenError, cleanLine } from "../protocol/index.js";
import { StoppedError, UsageError } from "./errors.js";
import { parseOptions, USAGE } from "./options.js";
import { runTask } from "./runTask.js";

/** The hint of a usage error that brings none of its own. */
const GUEST_HELP = "run warden-guest --help";

const progress = (line: string): void => {
  process.stderr.write(`warden-guest: ${cleanLine(line)}\n`);
};

async function main(): Promise<number> {
  const loaded = traceNow();
  let invocation;
  try {
    invocation = parseOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`warden-guest: ${error.message}\nhint: ${error.hint ?? GUEST_HELP}\n`);
    return 2;
  }
  if (invocation.kind === "help") {
    process.stdout.write(USAGE);
    return 0;
  }

  const stopping = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping.signal.aborted) {
      progress(`received ${signal} again: already stopping`);
      return;
    }
    progress(`received ${signal}: stopping the agent, then sending what there is`);
    stopping.abort(new StoppedError(`the runner was stopped by ${signal}`));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);

  const phases: TracedPhase[] = [];
  const trace =
    invocation.options.tracePhases === true
      ? phaseTrace("guest", (phase) => phases.push(phase))
      : NO_TRACE;
  trace.sinceStart("start the runner");
  trace.since("parse the command line", loaded);
  const started = performance.now();
  try {
    const { exitCode } = await runTask({
      ...invocation.options,
      out: process.stdout,
      progress,
      stop: stopping.signal,
      env: process.env,
      trace,
    });
    if (trace.on) progress(`${TRACE_LINE}${JSON.stringify(phases)}`);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const peakMiB = Math.round(process.resourceUsage().maxRSS / 1024);
    progress(`done in ${seconds} s, exit ${exitCode}, peak memory ${peakMiB} MiB`);
    return exitCode;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`warden-guest: ${error.message}\nhint: ${error.hint ?? GUEST_HELP}\n`);
      return 2;
    }
    const text = error instanceof WardenError ? error.message : String(error);
    progress(`could not send the results: ${text}`);
    return 1;
  }
}

/**
 * Exits with `code` once everything written to stdout (the results) and stderr has left the
 * process: a write's callback runs after the writes before it. The runner has nothing left to do
 * by then, and Node's own teardown of the runner's handles took about 8 ms more of every task
 * (from the runner's last phase to the host's judging, median of 11: 44 ms against 36 ms).
 */
function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  process.stdout.write("", () => {
    process.stderr.write("", () => process.exit(code));
  });
}

main().then(
  (code) => {
    exitWhenFlushed(code);
  },
  (error: unknown) => {
    progress(`unexpected failure: ${error instanceof Error ? (error.stack ?? "") : String(error)}`);
    process.exitCode = 1;
  },
);
