// Gemini CLI 0.61 retries a failed API call (429, 5xx) with backoff for minutes, and says so only
// on its stderr, never in its stream:
//   Attempt 1 failed with status 500. Retrying with backoff... _ApiError: {"error":{...}}
// followed by the error's stack. This reader finds those lines in the stderr so that a user
// watching the task sees why it is quiet. Like every reader it is pure and never throws.
import { cutText } from "../../protocol/index.js";
import { agentEvent, type AgentEvent, type StreamReader } from "../agentEvent.js";
import { optionalSummary } from "../eventText.js";
import { AGENT_EVENT_LIMITS } from "../limits.js";

/** A retry line: its attempt, the HTTP status when it names one, and the reason after it. */
const RETRY =
  /^Attempt (\d{1,9}) failed(?: with status (\d{3}))?[.:]? Retrying with backoff\.\.\.\s*(.*)$/u;

/** The error's own message inside the JSON body Gemini quotes, when there is one. */
const QUOTED_MESSAGE = /"message"\s*:\s*"((?:[^"\\]|\\.){0,2048})"/u;

/** The message of a quoted API error, unescaped; else the reason as it stands. */
function reasonOf(rest: string): string {
  const quoted = QUOTED_MESSAGE.exec(rest)?.[1];
  if (quoted === undefined) return rest;
  try {
    return JSON.parse(`"${quoted}"`) as string;
  } catch {
    return quoted;
  }
}

/** Reads one run's stderr for Gemini's retries. */
export class GeminiRetryReader implements StreamReader {
  line(text: string): AgentEvent[] {
    // Only the head of a line is looked at, so a hostile one costs no more than a short one.
    const head = cutText(text, AGENT_EVENT_LIMITS.textBytes).text.trim();
    const match = RETRY.exec(head);
    if (match === null) return [];
    const [, attempt, status, rest] = match;
    return [
      agentEvent({
        type: "retry",
        attempt: Number(attempt),
        status: status === undefined ? undefined : Number(status),
        message: optionalSummary(reasonOf(rest ?? "")),
      }),
    ];
  }

  end(): AgentEvent[] {
    return [];
  }
}
