// A task's events as a person reads them: the agent's turns, what it said, the tools it used and
// how they went, its usage and cost, retries, permission denials, approvals and messages. Every
// text in an event may have come from the sandbox, so each is cleaned and cut to one line here.
import { INSIDE_EVENTS } from "./inside/insideEvents.js";
import { cleanLine, cutText } from "../protocol/index.js";
import { API_FAILURE_EVENT_TYPE } from "./apiFailure.js";
import { dollars } from "./dollars.js";
import { BUDGET_EVENT_TYPE, USAGE_EVENT_TYPE } from "./spending/index.js";
import { AGENT_EVENT_TYPE, OUTPUT_EVENT_TYPE } from "./channel/index.js";

/** What a watcher sees of an assistant's text: one line of a terminal's width or so. */
const SAID_BYTES = 160;

type Fields = Readonly<Record<string, unknown>>;

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** One cleaned line, cut to `max` bytes with `…` when it was longer. */
function line(text: string, max = 400): string {
  const clean = cleanLine(text);
  const { text: cut, cut: wasCut } = cutText(clean, max);
  return wasCut ? `${cut}…` : cut;
}

export { dollars };

function agentText(e: Fields): string | undefined {
  switch (e.kind) {
    case "session": {
      const model = str(e.model);
      const session = str(e.sessionId);
      return `session${session === undefined ? "" : ` ${line(session, 64)}`}${model === undefined ? "" : `, model ${line(model, 128)}`}`;
    }
    case "turn_started":
      return `turn ${num(e.turn) ?? "?"}`;
    case "turn_ended":
      return `turn ${num(e.turn) ?? "?"} ended`;
    case "assistant_text":
      return `says: ${line(str(e.text) ?? "", SAID_BYTES)}`;
    case "tool_use": {
      const summary = str(e.summary) ?? "";
      return `uses ${line(str(e.name) ?? "?", 128)}${summary === "" ? "" : `: ${line(summary)}`}`;
    }
    case "tool_result": {
      const summary = str(e.summary);
      const how = e.ok === true ? "tool ok" : "tool error";
      return summary === undefined ? how : `${how}: ${line(summary)}`;
    }
    case "usage": {
      const cost = num(e.costUSD);
      return `usage: ${num(e.inputTokens) ?? 0} tokens in, ${num(e.outputTokens) ?? 0} out${cost === undefined ? "" : `, ${dollars(cost)} so far`}`;
    }
    case "retry": {
      const status = num(e.status);
      const message = str(e.message);
      return `API retry ${num(e.attempt) ?? "?"}${status === undefined ? "" : ` (HTTP ${status})`}${message === undefined ? "" : `: ${line(message)}`}`;
    }
    case "permission_denied": {
      const summary = str(e.summary);
      return `permission denied: ${line(str(e.tool) ?? "?", 128)}${summary === undefined ? "" : `: ${line(summary)}`}`;
    }
    case "result": {
      const parts: string[] = [];
      const stoppedBy = str(e.stoppedBy);
      parts.push(
        stoppedBy !== undefined
          ? `stopped by ${line(stoppedBy, 16)}`
          : e.ok === true
            ? "ok"
            : "failed",
      );
      const turns = num(e.turns);
      if (turns !== undefined) parts.push(`${turns} turn${turns === 1 ? "" : "s"}`);
      const cost = num(e.costUSD);
      if (cost !== undefined) parts.push(dollars(cost));
      const message = str(e.message);
      return `result: ${parts.join(", ")}${message === undefined ? "" : `: ${line(message, SAID_BYTES)}`}`;
    }
    default:
      return undefined;
  }
}

/** The relay's measure of a task's spend: `$0.0123 (1200 tokens in, 300 out)`. */
export function spendText(e: Fields): string {
  const tokens = [`${num(e.inputTokens) ?? 0} tokens in`, `${num(e.outputTokens) ?? 0} out`];
  const cached = num(e.cacheReadTokens) ?? 0;
  if (cached > 0) tokens.push(`${cached} cached`);
  return `${dollars(num(e.costUSD) ?? 0)} (${tokens.join(", ")})`;
}

/** A command's output line: its text, marked where it was cut or lines before it were left out. */
function outputText(e: Fields): string {
  const skipped = num(e.skipped);
  const text = line(str(e.text) ?? "", 4096) + (e.cut === true ? " [cut]" : "");
  if (skipped === undefined || skipped <= 0) return text;
  const missing = `[${skipped} line${skipped === 1 ? "" : "s"} not shown]`;
  return text === "" ? missing : `${missing} ${text}`;
}

/** A session a person opened inside the task (`warden exec`, `shell`, `cp`, `stop`). */
function insideText(type: string, e: Fields): string {
  const kind = line(str(e.kind) ?? "?", 16);
  const what = line(str(e.command) ?? str(e.path) ?? "", 1024);
  if (type === INSIDE_EVENTS.opened) {
    return kind === "stop"
      ? "stop: the debug hold ends"
      : `${kind} opened${what === "" ? "" : `: ${what}`}`;
  }
  const error = str(e.error);
  if (error !== undefined) return `${kind} ended: ${line(error, 1024)}`;
  const code = num(e.exitCode);
  const how = code === undefined ? `signal ${line(str(e.signal) ?? "?", 16)}` : `exit ${code}`;
  return `${kind} ended, ${how}, ${num(e.bytes) ?? 0} bytes`;
}

/**
 * The readable text of one event, without its time, or undefined for a type it does not know
 * (the caller shows those as `key=value`).
 */
export function eventText(type: string, e: Fields): string | undefined {
  switch (type) {
    case AGENT_EVENT_TYPE:
      return agentText(e);
    case "progress":
      return line(str(e.line) ?? "", 4096);
    case OUTPUT_EVENT_TYPE:
      return outputText(e);
    case "warning":
      return line(str(e.text) ?? "", 4096);
    case API_FAILURE_EVENT_TYPE:
      return `${line(str(e.message) ?? "the model API failed")}; the task ends`;
    case USAGE_EVENT_TYPE:
      return `cost so far ${spendText(e)}`;
    case BUDGET_EVENT_TYPE:
      return `${line(str(e.message) ?? "a spending cap was reached")}; the task ends`;
    case "approval_asked":
      return `approval ${num(e.request) ?? "?"} asked: ${line(str(e.tool) ?? "?", 128)}: ${line(str(e.summary) ?? "")}`;
    case "approval_answered": {
      const request = num(e.request);
      const decision = e.decision === "allow" ? "allowed" : "denied";
      const by = str(e.by) ?? "?";
      const what = `${line(str(e.tool) ?? "?", 128)}: ${line(str(e.summary) ?? "")}`;
      return `approval${request === undefined ? "" : ` ${request}`} ${decision} by ${line(by, 16)}: ${what} (${line(str(e.reason) ?? "", 200)})`;
    }
    case "message_taken":
      return `message ${num(e.n) ?? "?"} taken by the agent`;
    case "message_delivered":
      return `message ${num(e.n) ?? "?"} answered`;
    case INSIDE_EVENTS.opened:
    case INSIDE_EVENTS.ended:
      return insideText(type, e);
    default:
      return undefined;
  }
}
