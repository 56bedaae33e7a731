// The result as the runner builds it step by step, and the one it may send: every text a clean
// line within its limit, and the whole within what the host reads.
import { errorMessage } from "../lang/index.js";
import {
  LIMITS,
  WardenError,
  cleanLine,
  cutText,
  resultSchema,
  type Result,
} from "../protocol/index.js";

/** A Result being filled in; `error` is set by the first failure only. */
export type ResultDraft = { -readonly [K in keyof Result]: Result[K] } & { warnings: string[] };

export function newDraft(): ResultDraft {
  return { agent: "unknown", timedOut: false, leftovers: false, truncated: [], warnings: [] };
}

/** A failure in the words the result carries: the message, and the hint when there is one. */
function failureText(error: unknown): string {
  if (error instanceof WardenError) {
    return error.hint === undefined ? error.message : `${error.message} (hint: ${error.hint})`;
  }
  return `unexpected failure: ${errorMessage(error)}`;
}

/**
 * Records a failure: the first becomes the error (with its code when it is one of warden's own),
 * any later one a warning. Returns its text.
 */
export function recordFailure(draft: ResultDraft, error: unknown): string {
  const text = failureText(error);
  if (draft.error === undefined) {
    draft.error = text;
    if (error instanceof WardenError) draft.errorCode = error.code;
  } else {
    draft.warnings.push(text);
  }
  return text;
}

/**
 * The draft as result.json may carry it. A result that is still over LIMITS.resultBytes loses
 * its agentResult, the one part that is not the runner's own; one that fails the schema (a bug
 * in the runner) is replaced by a bare result that says so, so the host still gets one.
 */
export function finalResult(draft: ResultDraft): Result {
  const text = (line: string): string => cutText(cleanLine(line), LIMITS.resultTextBytes).text;
  let warnings = draft.warnings.map(text);
  if (warnings.length > LIMITS.resultWarnings) {
    const dropped = warnings.length - LIMITS.resultWarnings + 1;
    warnings = [...warnings.slice(0, LIMITS.resultWarnings - 1), `and ${dropped} more warnings`];
  }
  const result: Result = {
    ...draft,
    warnings,
    ...(draft.error === undefined ? {} : { error: text(draft.error) }),
    ...(draft.answer === undefined
      ? {}
      : { answer: cutText(draft.answer, LIMITS.resultTextBytes).text }),
  };
  if (Buffer.byteLength(JSON.stringify(result)) >= LIMITS.resultBytes) delete result.agentResult;
  const checked = resultSchema().safeParse(result);
  if (checked.success) return checked.data;
  return {
    agent: text(draft.agent),
    timedOut: draft.timedOut,
    leftovers: draft.leftovers,
    truncated: [],
    warnings: [],
    error: text(`the runner made a result it may not send: ${checked.error.message}`),
  };
}
