// An opt-in trace of named phases, for finding where a task's time goes. Times are milliseconds
// since the Unix epoch as this process's monotonic clock places them (performance.timeOrigin +
// performance.now()), so phases from the host and from a runner on the same machine line up on
// one axis. When tracing is off every call goes to NO_TRACE, which does nothing at all.
import { appendFileSync } from "node:fs";

/** The variable that turns tracing on: the path of a file that gets one JSON line per phase. */
export const TRACE_ENV = "WARDEN_TRACE";

/**
 * How the runner's line of phases starts (after its `warden-guest: ` label): the rest of the
 * line is a JSON array of TracedPhase, which the host reads as sandbox text.
 */
export const TRACE_LINE = "trace ";

/** One finished phase. `side` says whose clock measured it: "host" or "guest". */
export interface TracedPhase {
  readonly side: string;
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

/** Ends the phase it was returned for; a second call does nothing. */
export type EndPhase = () => void;

export interface PhaseTrace {
  /** True when phases are kept: callers skip work that only the trace needs otherwise. */
  readonly on: boolean;
  /** Starts a phase now; the returned function ends it. */
  start(name: string): EndPhase;
  /** A phase that ran from `start` (an epoch time, as traceNow gives) until now. */
  since(name: string, start: number): void;
  /** A phase that ran from this process's start until now. */
  sinceStart(name: string): void;
  /**
   * Times a promise as one phase, ending it however the promise settles. The clock starts when
   * `around` is called, after whatever the work did before its first await: work that blocks
   * before then (a spawn) is timed with `start` instead.
   */
  around<T>(name: string, work: Promise<T>): Promise<T>;
  /** Keeps a phase another process timed (the runner's, read from its trace line). */
  record(phase: TracedPhase): void;
}

/**
 * Now, as an epoch time in milliseconds with the monotonic clock's precision. The first read of
 * `performance` loads perf_hooks, about 3 ms of a process's start: code that runs whether or not
 * tracing is on reads the clock only when `on` says so.
 */
export function traceNow(): number {
  return performance.timeOrigin + performance.now();
}

const END_NOTHING: EndPhase = () => undefined;

/** The trace that keeps nothing. */
export const NO_TRACE: PhaseTrace = {
  on: false,
  start: () => END_NOTHING,
  since: () => undefined,
  sinceStart: () => undefined,
  around: (_name, work) => work,
  record: () => undefined,
};

/** A trace that hands each finished phase to `keep`. */
export function phaseTrace(side: string, keep: (phase: TracedPhase) => void): PhaseTrace {
  const start = (name: string): EndPhase => {
    const began = traceNow();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      keep({ side, name, start: began, end: traceNow() });
    };
  };
  return {
    on: true,
    start,
    since: (name, began) => {
      keep({ side, name, start: began, end: traceNow() });
    },
    sinceStart: (name) => {
      keep({ side, name, start: performance.timeOrigin, end: traceNow() });
    },
    around: (name, work) => {
      const end = start(name);
      return work.finally(end);
    },
    record: keep,
  };
}

/**
 * The trace that WARDEN_TRACE asks for: each phase appended as one JSON line to the file it
 * names, or NO_TRACE when it is unset or empty. A line that cannot be written is dropped, since
 * a trace must never fail the work it watches.
 */
export function traceFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  side = "host",
): PhaseTrace {
  const file = env[TRACE_ENV];
  if (file === undefined || file === "") return NO_TRACE;
  return phaseTrace(side, (phase) => {
    try {
      appendFileSync(file, JSON.stringify(phase) + "\n");
    } catch {
      // The trace is a diagnostic; the task goes on without it.
    }
  });
}
