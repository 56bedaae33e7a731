// Building a terminal record from what an executor says: checked, with its texts cut.
import { cleanLine, cutText } from "../protocol/index.js";
import { BadTerminalError } from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import {
  STOPPED_BY,
  TERMINAL_STATES,
  isTerminalRecord,
  type CancelRequest,
  type StoppedBy,
  type TerminalRecord,
  type TerminalState,
} from "./terminalRecord.js";

/** What an executor gives `finish`. */
export interface TerminalInput {
  state: TerminalState;
  /** Only for `failed`: the bound that ended the task. */
  stoppedBy?: StoppedBy;
  summary?: string;
  error?: string;
  details?: Record<string, unknown>;
}

/** Checks an executor's terminal input and builds the record; cuts the summary and error. */
export function buildTerminal(
  input: TerminalInput,
  facts: { at: number; lastSeq: number; attempts: number; cancel: CancelRequest | undefined },
): TerminalRecord {
  if (!(TERMINAL_STATES as readonly string[]).includes(input.state)) {
    throw new BadTerminalError(`"${cleanLine(input.state)}" is not a terminal state`);
  }
  if (input.stoppedBy !== undefined) {
    if (!(STOPPED_BY as readonly string[]).includes(input.stoppedBy)) {
      throw new BadTerminalError(`"${cleanLine(input.stoppedBy)}" is not a bound`);
    }
    if (input.state !== "failed") {
      throw new BadTerminalError("only a failed task is stopped by a bound");
    }
  }
  const record: TerminalRecord = {
    state: input.state,
    at: facts.at,
    lastSeq: facts.lastSeq,
    attempts: facts.attempts,
  };
  if (input.stoppedBy !== undefined) record.stoppedBy = input.stoppedBy;
  if (input.summary !== undefined) {
    const { text, cut } = cutText(input.summary, STORE_LIMITS.summaryBytes);
    record.summary = text;
    record.summaryCut = cut;
  }
  if (input.error !== undefined) {
    record.error = cutText(input.error, STORE_LIMITS.terminalErrorBytes).text;
  }
  if (input.state === "cancelled" && facts.cancel !== undefined) record.cancel = facts.cancel;
  if (input.details !== undefined) {
    let bytes: number;
    try {
      bytes = Buffer.byteLength(JSON.stringify(input.details));
    } catch {
      throw new BadTerminalError("details is not a JSON object");
    }
    if (bytes > STORE_LIMITS.terminalDetailsBytes) {
      throw new BadTerminalError(
        `details is ${bytes} bytes, over ${STORE_LIMITS.terminalDetailsBytes}`,
      );
    }
    record.details = input.details;
  }
  if (!isTerminalRecord(record)) throw new BadTerminalError("the terminal record is not valid");
  return record;
}
