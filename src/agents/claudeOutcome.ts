// How a Claude Code run ended. Claude Code's `result` line says so, but not by its `subtype`: an
// API error arrives as subtype "success". What counts is `is_error` and `terminal_reason`
// ("completed", "max_turns", "budget_exhausted", "api_error", "aborted_tools", ...). A run
// that ends without a result line (SIGTERM: exit 143) gets one made up here, which says so.
import { constants } from "node:os";
import { cutText } from "../protocol/index.js";
import type { AgentExit, AgentOutcome, AgentResultEvent } from "./adapter.js";
import { AGENT_EVENT_LIMITS, type AgentStop } from "./agentEvent.js";
import { amount, count, isObject, text, type JsonObject } from "./claudeFields.js";

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

/** The `terminal_reason` of a result warden made up. */
export const MADE_UP_TERMINAL_REASON = "no_result_line";

function cut(message: string): string {
  const { text: kept, cut: wasCut } = cutText(message, AGENT_EVENT_LIMITS.textBytes);
  return wasCut ? `${kept} …` : kept;
}

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
  const event: {
    -readonly [K in keyof AgentResultEvent]: AgentResultEvent[K];
  } = { type: "result", ok };
  if (stoppedBy !== undefined) event.stoppedBy = stoppedBy;
  const turns = count(line.num_turns);
  if (turns !== undefined) event.turns = turns;
  const costUSD = amount(line.total_cost_usd);
  if (costUSD !== undefined) event.costUSD = costUSD;
  if (message !== undefined) event.message = cut(message);
  return event;
}

/** How an exit code reads: `exit 143, SIGTERM`. */
function exitText(exitCode: number): string {
  if (exitCode > 128) {
    const signal = Object.entries(constants.signals).find(([, n]) => n === exitCode - 128)?.[0];
    if (signal !== undefined) return `exit ${exitCode}, ${signal}`;
  }
  return `exit ${exitCode}`;
}

/**
 * The result warden writes for a run that ended without a result line: shaped like Claude
 * Code's own (type, subtype, is_error, terminal_reason, result), so whatever reads one reads
 * both, and marked as warden's.
 */
export function madeUpClaudeResult(exitCode: number): JsonObject {
  const how = exitText(exitCode);
  const message =
    exitCode === 143 || exitCode === 137 || exitCode === 130
      ? `Claude Code was stopped (${how}) before it wrote a result`
      : `Claude Code ended (${how}) without writing a result`;
  return {
    type: "result",
    subtype: "error_during_execution",
    is_error: true,
    terminal_reason: MADE_UP_TERMINAL_REASON,
    result: message,
    exit_code: exitCode,
    made_up_by: "warden",
  };
}

/** Pure: how a Claude Code run ended, from its last stdout line and its exit code. */
export function claudeOutcome(exit: AgentExit): AgentOutcome {
  const { lastLine, exitCode } = exit;
  if (!isClaudeResult(lastLine)) {
    const agentResult = madeUpClaudeResult(exitCode);
    return { result: claudeResultEvent(agentResult), agentResult, madeUp: true };
  }
  const result = claudeResultEvent(lastLine);
  if (result.ok && exitCode !== 0) {
    // The last message succeeded, then the process did not end cleanly: stopped while it
    // waited for the next message, or it failed on the way out.
    return {
      result: {
        ...result,
        ok: false,
        message: `Claude Code ${exitCode > 128 ? "was stopped" : "failed"} after its last result (${exitText(exitCode)})`,
      },
      agentResult: lastLine,
      madeUp: false,
    };
  }
  return { result, agentResult: lastLine, madeUp: false };
}
