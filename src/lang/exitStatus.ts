// How the end of a process reads as one number and in words. A process a signal ended reports
// 128 + the signal's number, as a shell does, so such a number also names its signal.
import { constants } from "node:os";

/** The exit code of a process that ended with `code`, or 128 + the number of `signal`. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  const number = signal === null ? undefined : constants.signals[signal];
  return code ?? 128 + (number ?? 0);
}

/** How an exit code reads: `exit 143, SIGTERM`. */
export function exitText(exitCode: number): string {
  if (exitCode > 128) {
    const signal = Object.entries(constants.signals).find(([, n]) => n === exitCode - 128)?.[0];
    if (signal !== undefined) return `exit ${exitCode}, ${signal}`;
  }
  return `exit ${exitCode}`;
}
