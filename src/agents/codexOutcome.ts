// How a Codex run ended. `codex exec` exits 0 after a `turn.completed` and 1 after a
// `turn.failed` or an error before any turn (Codex CLI 0.171); a signal ends it with 128 + the
// signal's number. Its stream says more than its exit code: the reader's `result` (the answer
// or the error) is preferred, then the last line, and only then the exit code alone.
import { constants } from "node:os";
import type { AgentEvent } from "./agentEvent.js";
import { isCodexTurnEnd, parseCodexLine } from "./codexEvents.js";
import { cutMessage } from "./codexSummary.js";

type ResultEvent = Extract<AgentEvent, { type: "result" }>;
type JsonObject = Readonly<Record<string, unknown>>;

/** What the runner knows once a Codex run has exited. */
export interface CodexExit {
  /** The exit code, or 128 + the number of the signal that ended it. */
  readonly exitCode: number;
  /** The run's last stdout line parsed as a JSON object, if it was one. */
  readonly lastLine?: JsonObject | undefined;
}

/** How a Codex run ended: shaped like every adapter's outcome. */
export interface CodexOutcome {
  readonly result: ResultEvent;
  /** For result.agentResult: Codex's own last line, or the one made up here (`madeUp`). */
  readonly agentResult: JsonObject;
  /** Codex gave no account of how its turn ended; `result` and `agentResult` are warden's. */
  readonly madeUp: boolean;
}

/** How an exit code reads: `exit 143, SIGTERM`. */
export function exitText(exitCode: number): string {
  if (exitCode > 128) {
    const signal = Object.entries(constants.signals).find(([, n]) => n === exitCode - 128)?.[0];
    if (signal !== undefined) return `exit ${exitCode}, ${signal}`;
  }
  return `exit ${exitCode}`;
}

/** Whether an exit code says a signal stopped the process (warden's or anyone's). */
function stopped(exitCode: number): boolean {
  return exitCode === 130 || exitCode === 137 || exitCode === 143;
}

/** The line warden keeps for a run that wrote no end of its own: shaped like `turn.failed`. */
export function madeUpCodexResult(exitCode: number, why: string | undefined): JsonObject {
  const message =
    why ??
    (stopped(exitCode)
      ? `Codex CLI was stopped (${exitText(exitCode)}) before its turn ended`
      : `Codex CLI ended (${exitText(exitCode)}) without ending its turn`);
  return {
    type: "turn.failed",
    error: { message: cutMessage(message) },
    exit_code: exitCode,
    made_up_by: "warden",
  };
}

/** The result a turn-ending line says, without the reader's answer and turn count. */
function resultOfLine(line: JsonObject): ResultEvent | undefined {
  const parsed = parseCodexLine(JSON.stringify(line));
  if (parsed?.type === "turn.completed") return { type: "result", ok: true };
  if (parsed?.type === "turn.failed" || parsed?.type === "error") {
    const message = parsed.error?.message ?? parsed.message;
    const event: ResultEvent = { type: "result", ok: false };
    return message === undefined ? event : { ...event, message: cutMessage(message) };
  }
  return undefined;
}

/**
 * Pure: how a Codex run ended, from its exit and the last `result` its stream reader gave (the
 * runner keeps it). A result that says ok is only ok when the process also exited 0.
 */
export function codexOutcome(exit: CodexExit, lastResult?: ResultEvent): CodexOutcome {
  const { exitCode, lastLine } = exit;
  const own = lastLine !== undefined && isCodexTurnEnd(lastLine) ? lastLine : undefined;
  const account = lastResult ?? (lastLine === undefined ? undefined : resultOfLine(lastLine));
  if (account === undefined) {
    const agentResult = madeUpCodexResult(exitCode, undefined);
    const result = resultOfLine(agentResult) ?? { type: "result", ok: false };
    return { result, agentResult, madeUp: true };
  }
  const agentResult =
    own ?? madeUpCodexResult(exitCode, account.ok ? undefined : (account.message ?? undefined));
  if (account.ok && exitCode !== 0) {
    // The turn completed, then the process did not end cleanly.
    const how = stopped(exitCode) ? "was stopped" : "failed";
    return {
      result: {
        ...account,
        ok: false,
        message: `Codex CLI ${how} after its turn completed (${exitText(exitCode)})`,
      },
      agentResult,
      madeUp: own === undefined,
    };
  }
  return { result: account, agentResult, madeUp: own === undefined };
}
