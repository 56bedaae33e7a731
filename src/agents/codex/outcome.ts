// How a Codex run ended. `codex exec` exits 0 after a `turn.completed` and 1 after a
// `turn.failed` or an error before any turn (Codex CLI 0.171); a signal ends it with 128 + the
// signal's number. Its stream says more than its exit code: the reader's `result` (the answer
// or the error) is preferred, then the last line, and only then the exit code alone.
import { exitText } from "../../lang/index.js";
import type { AgentExit, AgentOutcome, AgentResultEvent } from "../adapter.js";
import { cutMessage } from "../eventText.js";
import type { JsonObject } from "../jsonLines.js";
import { SYNTHESIZED_MARK, okOnlyOnExitZero, stoppedBySignal } from "../verdict.js";
import { isCodexTurnEnd, parseCodexLine } from "./lines.js";

/** How a Codex run ended: always with the line result.agentResult keeps. */
export type CodexOutcome = Required<AgentOutcome>;

/** The line warden keeps for a run that wrote no end of its own: shaped like `turn.failed`. */
export function synthesizedCodexResult(exitCode: number, why: string | undefined): JsonObject {
  const message =
    why ??
    (stoppedBySignal(exitCode)
      ? `Codex CLI was stopped (${exitText(exitCode)}) before its turn ended`
      : `Codex CLI ended (${exitText(exitCode)}) without ending its turn`);
  return {
    type: "turn.failed",
    error: { message: cutMessage(message) },
    exit_code: exitCode,
    ...SYNTHESIZED_MARK,
  };
}

/** The result a turn-ending line says, without the reader's answer and turn count. */
function resultOfLine(line: JsonObject): AgentResultEvent | undefined {
  const parsed = parseCodexLine(JSON.stringify(line));
  if (parsed?.type === "turn.completed") return { type: "result", ok: true };
  if (parsed?.type === "turn.failed" || parsed?.type === "error") {
    const message = parsed.error?.message ?? parsed.message;
    const event: AgentResultEvent = { type: "result", ok: false };
    return message === undefined ? event : { ...event, message: cutMessage(message) };
  }
  return undefined;
}

/**
 * Pure: how a Codex run ended, from its exit and the last `result` its stream reader gave (the
 * runner keeps it). A result that says ok is only ok when the process also exited 0.
 */
export function codexOutcome(exit: AgentExit, lastResult = exit.lastResult): CodexOutcome {
  const { exitCode, lastLine } = exit;
  const own = lastLine !== undefined && isCodexTurnEnd(lastLine) ? lastLine : undefined;
  const account = lastResult ?? (lastLine === undefined ? undefined : resultOfLine(lastLine));
  if (account === undefined) {
    const agentResult = synthesizedCodexResult(exitCode, undefined);
    const result = resultOfLine(agentResult) ?? { type: "result", ok: false };
    return { result, agentResult, synthesized: true };
  }
  const agentResult =
    own ?? synthesizedCodexResult(exitCode, account.ok ? undefined : account.message);
  // The turn completed, then the process did not end cleanly.
  const how = stoppedBySignal(exitCode) ? "was stopped" : "failed";
  const result = okOnlyOnExitZero(account, exitCode, `Codex CLI ${how} after its turn completed`);
  return { result, agentResult, synthesized: own === undefined };
}
