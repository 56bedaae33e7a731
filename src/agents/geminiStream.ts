// Reads one run of `gemini --output-format stream-json` into warden's events. What each kind of
// line means is in geminiEvents.ts.
//
// Gemini writes no line for a turn. A turn here is one model call, as Gemini counts them for
// its own turn limit: it begins with the first text or tool call after the prompt or after the
// tool results of the call before, and it ends when its tools' results (or the run's result)
// arrive. The model's text comes in pieces, joined here into one assistant text per stretch.
import {
  AGENT_EVENT_LIMITS,
  type AgentEvent,
  type AgentStop,
  type StreamReader,
} from "./agentEvent.js";
import { parseGeminiLine, type GeminiLine } from "./geminiEvents.js";
import { SESSION_ID } from "./geminiLaunch.js";
import { GeminiLedger } from "./geminiLedger.js";
import { GEMINI_LIMITS } from "./geminiLimits.js";
import { cutMessage, eventName, summarizeGeminiInput, summaryLine } from "./geminiSummary.js";
import { cutText } from "../protocol/index.js";

type ResultEvent = Extract<AgentEvent, { type: "result" }>;

/** The error type of Gemini's result when its own turn limit (maxSessionTurns) ended the run. */
export const GEMINI_TURN_LIMIT_ERROR = "FatalTurnLimitedError";

/** The result event one of Gemini's result lines says, without the turn count. */
export function geminiResultEvent(line: GeminiLine, fallback?: string): ResultEvent {
  const ok = line.status === "success";
  const event: { -readonly [K in keyof ResultEvent]: ResultEvent[K] } = { type: "result", ok };
  const stoppedBy: AgentStop | undefined =
    line.error?.type === GEMINI_TURN_LIMIT_ERROR ? "turns" : undefined;
  if (stoppedBy !== undefined) {
    event.ok = false;
    event.stoppedBy = stoppedBy;
  }
  const message = event.ok ? fallback : (line.error?.message ?? fallback);
  if (message !== undefined && message.trim() !== "") event.message = cutMessage(message);
  return event;
}

/** A stateful, pure reader of one Gemini run. Never throws; bounded state. */
export class GeminiStreamReader implements StreamReader {
  private openTurn: number | undefined;
  /** The pieces of the text being written, their bytes, and whether some were dropped. */
  private pieces: string[] = [];
  private pieceBytes = 0;
  private piecesCut = false;
  /** The last whole stretch of the model's text: the answer of a run that succeeds. */
  private answer: string | undefined;
  /** The last error Gemini reported on the way: the reason when its result gives none. */
  private lastError: string | undefined;
  private unreadable = 0;

  constructor(private readonly ledger: GeminiLedger = new GeminiLedger()) {
    ledger.beginRun();
  }

  /** How many lines could not be read (not JSON, not an object, too long). */
  get unreadableLines(): number {
    return this.unreadable;
  }

  line(raw: string): AgentEvent[] {
    const line = parseGeminiLine(raw);
    if (line === undefined) {
      if (raw.trim() !== "") this.unreadable += 1;
      return [];
    }
    switch (line.type) {
      case "init":
        return this.init(line);
      case "message":
        return line.role === "assistant" ? this.text(line.content ?? "") : this.boundary();
      case "tool_use":
        return [...this.flush(), ...this.startTurn(), this.toolUse(line)];
      case "tool_result":
        return [...this.boundary(), this.toolResult(line)];
      case "error":
        if (line.severity !== "warning" && line.message !== undefined) {
          this.lastError = cutText(line.message, AGENT_EVENT_LIMITS.textBytes).text;
        }
        return [];
      case "result":
        return this.result(line);
      default:
        return [];
    }
  }

  end(): AgentEvent[] {
    return this.boundary();
  }

  private init(line: GeminiLine): AgentEvent[] {
    const event: { type: "session"; sessionId?: string; model?: string } = { type: "session" };
    if (line.session_id !== undefined && SESSION_ID.test(line.session_id)) {
      event.sessionId = line.session_id;
    }
    if (line.model !== undefined && line.model.trim() !== "") {
      event.model = eventName(line.model);
    }
    return [event];
  }

  private startTurn(): AgentEvent[] {
    if (this.openTurn !== undefined) return [];
    this.openTurn = this.ledger.startTurn();
    return [{ type: "turn_started", turn: this.openTurn }];
  }

  /** The text written so far, as one event; nothing when there is none. */
  private flush(): AgentEvent[] {
    if (this.pieces.length === 0) return [];
    const text = this.pieces.join("");
    const cut = this.piecesCut;
    this.pieces = [];
    this.pieceBytes = 0;
    this.piecesCut = false;
    if (text.trim() === "") return [];
    this.answer = text;
    return [{ type: "assistant_text", text, cut }];
  }

  /** The end of a stretch of the model's output: its text, then the end of its turn. */
  private boundary(): AgentEvent[] {
    const events = this.flush();
    if (this.openTurn !== undefined) {
      events.push({ type: "turn_ended", turn: this.openTurn });
      this.openTurn = undefined;
    }
    return events;
  }

  private text(content: string): AgentEvent[] {
    if (content === "") return [];
    const events = this.startTurn();
    if (this.piecesCut) return events;
    const room = AGENT_EVENT_LIMITS.textBytes - this.pieceBytes;
    const { text, cut } = cutText(content, room);
    this.pieces.push(text);
    this.pieceBytes += cut ? Buffer.byteLength(text) : Buffer.byteLength(content);
    this.piecesCut = cut;
    return events;
  }

  private toolUse(line: GeminiLine): AgentEvent {
    const name = eventName(line.tool_name);
    const event: { type: "tool_use"; id?: string; name: string; summary: string } = {
      type: "tool_use",
      name,
      summary: summarizeGeminiInput(line.tool_name ?? "", line.parameters),
    };
    if (line.tool_id !== undefined) {
      event.id = cutText(line.tool_id, GEMINI_LIMITS.toolNameBytes).text;
    }
    return event;
  }

  private toolResult(line: GeminiLine): AgentEvent {
    const ok = line.status === "success";
    const event: { type: "tool_result"; id?: string; ok: boolean; summary?: string } = {
      type: "tool_result",
      ok,
    };
    if (line.tool_id !== undefined) {
      event.id = cutText(line.tool_id, GEMINI_LIMITS.toolNameBytes).text;
    }
    const said = ok ? line.output : (line.error?.message ?? line.output);
    const summary = summaryLine(said ?? "");
    if (summary !== "") event.summary = summary;
    return event;
  }

  private result(line: GeminiLine): AgentEvent[] {
    const events = this.boundary();
    const { input_tokens: input, output_tokens: output } = line.stats ?? {};
    if (input !== undefined || output !== undefined) {
      const tokens = this.ledger.setRunUsage({
        inputTokens: input ?? 0,
        outputTokens: output ?? 0,
      });
      events.push({ type: "usage", ...tokens });
    }
    const fallback = line.status === "success" ? this.answer : this.lastError;
    events.push({ ...geminiResultEvent(line, fallback), turns: this.ledger.turns });
    return events;
  }
}

/**
 * A fresh reader for one Gemini run. Give every run of a task the same ledger, so that turn
 * numbers and usage continue across resumes; without one, the run stands alone.
 */
export function geminiStreamReader(ledger?: GeminiLedger): GeminiStreamReader {
  return new GeminiStreamReader(ledger);
}
