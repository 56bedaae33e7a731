// How a Claude Code run ended. Claude Code's `result` line says so, but not by its `subtype`: an
// API error arrives as subtype "success". What counts is `is_error` and `terminal_reason`
// ("completed", "max_turns", "budget_exhausted", "api_error", "aborted_tools", ...). A run
// that ends without a result line (SIGTERM: exit 143) gets one synthesized here, which says so.
import { exitText } from "../../lang/index.js";
import type { AgentExit, AgentOutcome, AgentResultEvent } from "../adapter.js";
import { agentEvent, type AgentStop } from "../agentEvent.js";
import { resultMessage } from "../eventText.js";
import { isObject, type JsonObject } from "../jsonLines.js";
import { SYNTHESIZED_MARK, okOnlyOnExitZero, stoppedBySignal } from "../verdict.js";
import { amount, count, text } from "./fields.js";

/** The terminal reasons that mean a bound of the task ended the run. */
const STOPPED_BY: Readonly<Record<string, AgentStop>> = {
  max_turns: "turns",
  budget_exhausted: "budget",
};

/**
 * The same, by subtype: read only when a result has no terminal_reason at all, which is how
 * Claude Code versions older than the pinned one write it.
 */
const STOPPED_BY_SUBTYPE: Readonly<Record<string, AgentStop>> = {
  error_max_turns: "turns",
  error_max_budget_usd: "budget",
};

/** The `terminal_reason` of a result warden synthesized. */
export const SYNTHESIZED_TERMINAL_REASON = "no_result_line";

/** What a failed result without an answer says, from its reason and its `errors`. */
function describe(
  reason: string | undefined,
  stoppedBy: AgentStop | undefined,
  errors: readonly string[],
): string {
  // The errors of a bound name it with its number ("Reached maximum budget ($0.01)").
  if (stoppedBy !== undefined && errors.length > 0) return errors.join("; ");
  if (stoppedBy === "turns") return "Claude Code reached its maximum number of turns";
  if (stoppedBy === "budget") return "Claude Code reached its maximum budget";
  // The errors of an interruption are Claude Code's diagnostics, not news to a person.
  if (reason?.startsWith("aborted") === true) return `Claude Code was interrupted (${reason})`;
  if (errors.length > 0) return errors.join("; ");
  return reason === undefined
    ? "Claude Code ended with an error"
    : `Claude Code ended with an error (${reason})`;
}

/** Whether a parsed line is a Claude Code result line. */
export function isClaudeResult(line: unknown): line is JsonObject {
  return isObject(line) && line.type === "result";
}

/** Reads a Claude Code result line into warden's result event. */
export function claudeResultEvent(line: JsonObject): AgentResultEvent {
  const reason = text(line.terminal_reason);
  const subtype = text(line.subtype);
  const stoppedBy =
    reason !== undefined
      ? STOPPED_BY[reason]
      : subtype === undefined
        ? undefined
        : STOPPED_BY_SUBTYPE[subtype];
  // Anything but an explicit `is_error: false` is a failure: a line that does not say it
  // succeeded did not.
  const ok = line.is_error === false && stoppedBy === undefined;
  const errors = Array.isArray(line.errors)
    ? line.errors.map(text).filter((e): e is string => e !== undefined && e.trim() !== "")
    : [];
  const answer = text(line.result);
  const message =
    answer !== undefined && answer.trim() !== ""
      ? answer
      : ok
        ? undefined
        : describe(reason, stoppedBy, errors);
  return agentEvent({
    type: "result",
    ok,
    stoppedBy,
    turns: count(line.num_turns),
    costUSD: amount(line.total_cost_usd),
    message: resultMessage(message),
  });
}

/**
 * The result warden writes for a run that ended without a result line: shaped like Claude
 * Code's own (type, subtype, is_error, terminal_reason, result), so whatever reads one reads
 * both, and marked as warden's.
 */
export function synthesizedClaudeResult(exitCode: number): JsonObject {
  const how = exitText(exitCode);
  const message = stoppedBySignal(exitCode)
    ? `Claude Code was stopped (${how}) before it wrote a result`
    : `Claude Code ended (${how}) without writing a result`;
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    terminal_reason: SYNTHESIZED_TERMINAL_REASON,
    result: message,
    exit_code: exitCode,
    ...SYNTHESIZED_MARK,
  };
}

/** Pure: how a Claude Code run ended, from its last stdout line and its exit code. */
export function claudeOutcome(exit: AgentExit): AgentOutcome {
  const { lastLine, exitCode } = exit;
  if (!isClaudeResult(lastLine)) {
    const agentResult = synthesizedClaudeResult(exitCode);
    return { result: claudeResultEvent(agentResult), agentResult, synthesized: true };
  }
  // The last message succeeded, then the process did not end cleanly: stopped while it
  // waited for the next message, or it failed on the way out.
  const how = exitCode > 128 ? "was stopped" : "failed";
  const result = okOnlyOnExitZero(
    claudeResultEvent(lastLine),
    exitCode,
    `Claude Code ${how} after its last result`,
  );
  return { result, agentResult: lastLine, synthesized: false };
}
