// How a Gemini run ended, from its exit code and its stream. The exit code says what kind of
// end it was (exitCodes.ts); Gemini's `result` line, when it wrote one, says why in its
// own words (an API error's message). Both go into the result: neither alone is the whole.
import type { AgentExit, AgentOutcome, AgentResultEvent } from "../adapter.js";
import { cutMessage } from "../eventText.js";
import type { JsonObject } from "../jsonLines.js";
import { SYNTHESIZED_MARK } from "../verdict.js";
import { geminiExit, type GeminiExit } from "./exitCodes.js";
import { isGeminiResult, parseGeminiLine } from "./lines.js";
import { geminiResultEvent } from "./stream.js";

/** How a Gemini run ended: always with the line result.agentResult keeps, and the exit read. */
export type GeminiOutcome = Required<AgentOutcome> & { readonly exit: GeminiExit };

/** What Gemini's exit says, as the start of a message: `Gemini CLI got HTTP status 429 ...`. */
function exitMessage(exit: GeminiExit): string {
  return `Gemini CLI ${exit.meaning} (exit ${exit.code})`;
}

/** The line warden keeps for a run that wrote no result: shaped like Gemini's own. */
export function synthesizedGeminiResult(exitCode: number, message: string): JsonObject {
  return {
    type: "result",
    status: "error",
    error: { type: "NoResultLine", message: cutMessage(message) },
    exit_code: exitCode,
    ...SYNTHESIZED_MARK,
  };
}

/**
 * Pure: how a Gemini run ended, from its exit and the last `result` its stream reader gave (the
 * runner keeps it; it has the answer and the turn count). Without it, the last line is read.
 */
export function geminiOutcome(run: AgentExit, lastResult = run.lastResult): GeminiOutcome {
  const exit = geminiExit(run.exitCode);
  const own = run.lastLine !== undefined && isGeminiResult(run.lastLine) ? run.lastLine : undefined;
  let account = lastResult;
  if (account === undefined && own !== undefined) {
    const parsed = parseGeminiLine(JSON.stringify(own));
    if (parsed !== undefined) account = geminiResultEvent(parsed);
  }
  const stoppedBy = exit.kind === "turn_limit" ? "turns" : account?.stoppedBy;
  let result: AgentResultEvent;
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
  const agentResult =
    own ?? synthesizedGeminiResult(run.exitCode, result.message ?? exitMessage(exit));
  return { result, agentResult, synthesized: own === undefined, exit };
}
