// How a Gemini run ended, from its exit code and its stream. The exit code says what kind of
// end it was (geminiExitCodes.ts); Gemini's `result` line, when it wrote one, says why in its
// own words (an API error's message). Both go into the result: neither alone is the whole.
import type { AgentEvent } from "./agentEvent.js";
import { geminiExit, type GeminiExit } from "./geminiExitCodes.js";
import { isGeminiResult, parseGeminiLine } from "./geminiEvents.js";
import { geminiResultEvent } from "./geminiStream.js";
import { cutMessage } from "./geminiSummary.js";

type ResultEvent = Extract<AgentEvent, { type: "result" }>;
type JsonObject = Readonly<Record<string, unknown>>;

/** What the runner knows once a Gemini run has exited. */
export interface GeminiRunExit {
  /** The exit code, or 128 + the number of the signal that ended it. */
  readonly exitCode: number;
  /** The run's last stdout line parsed as a JSON object, if it was one. */
  readonly lastLine?: JsonObject | undefined;
}

/** How a Gemini run ended: shaped like every adapter's outcome, with the exit code read. */
export interface GeminiOutcome {
  readonly result: ResultEvent;
  /** For result.agentResult: Gemini's own result line, or the one made up here (`madeUp`). */
  readonly agentResult: JsonObject;
  /** Gemini wrote no result line; `agentResult` is warden's. */
  readonly madeUp: boolean;
  readonly exit: GeminiExit;
}

/** What Gemini's exit says, as the start of a message: `Gemini CLI got HTTP status 429 ...`. */
function exitMessage(exit: GeminiExit): string {
  return `Gemini CLI ${exit.meaning} (exit ${exit.code})`;
}

/** The line warden keeps for a run that wrote no result: shaped like Gemini's own. */
export function madeUpGeminiResult(exitCode: number, message: string): JsonObject {
  return {
    type: "result",
    status: "error",
    error: { type: "NoResultLine", message: cutMessage(message) },
    exit_code: exitCode,
    made_up_by: "warden",
  };
}

/**
 * Pure: how a Gemini run ended, from its exit and the last `result` its stream reader gave (the
 * runner keeps it; it has the answer and the turn count). Without it, the last line is read.
 */
export function geminiOutcome(run: GeminiRunExit, lastResult?: ResultEvent): GeminiOutcome {
  const exit = geminiExit(run.exitCode);
  const own = run.lastLine !== undefined && isGeminiResult(run.lastLine) ? run.lastLine : undefined;
  let account = lastResult;
  if (account === undefined && own !== undefined) {
    const parsed = parseGeminiLine(JSON.stringify(own));
    if (parsed !== undefined) account = geminiResultEvent(parsed);
  }
  const stoppedBy = exit.kind === "turn_limit" ? "turns" : account?.stoppedBy;
  let result: ResultEvent;
  if (exit.kind === "ok" && account !== undefined) {
    // Exit 0 with an error result is how Gemini ends an invalid response (INVALID_STREAM).
    result = account;
  } else if (exit.kind === "ok") {
    result = { type: "result", ok: false, message: "Gemini CLI exited 0 without a result" };
  } else {
    const why = account !== undefined && !account.ok ? account.message : undefined;
    const message =
      account?.ok === true
        ? `${exitMessage(exit)} after a successful result`
        : why === undefined
          ? exitMessage(exit)
          : `${exitMessage(exit)}: ${why}`;
    result = { ...account, type: "result", ok: false, message: cutMessage(message) };
  }
  if (stoppedBy !== undefined) result = { ...result, ok: false, stoppedBy };
  const agentResult = own ?? madeUpGeminiResult(run.exitCode, result.message ?? exitMessage(exit));
  return { result, agentResult, madeUp: own === undefined, exit };
}
