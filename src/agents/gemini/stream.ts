// Reads one run of `gemini --output-format stream-json` into warden's events. What each kind of
// line means is in lines.ts.
//
// Gemini writes no line for a turn. A turn here is one model call, as Gemini counts them for
// its own turn limit: it begins with the first text or tool call after the prompt or after the
// tool results of the call before, and it ends when its tools' results (or the run's result)
// arrive. The model's text comes in pieces, joined here into one assistant text per stretch.
import { cutText } from "../../protocol/index.js";
import type { AgentResultEvent } from "../adapter.js";
import { agentEvent, type AgentEvent } from "../agentEvent.js";
import { eventId, eventName, optionalSummary, resultMessage } from "../eventText.js";
import { JsonLinesReader } from "../jsonLines.js";
import { SESSION_ID } from "../launchChecks.js";
import { AGENT_EVENT_LIMITS } from "../limits.js";
import { GeminiLedger } from "./ledger.js";
import { parseGeminiLine, type GeminiLine } from "./lines.js";
import { summarizeGeminiInput } from "./summary.js";

/** The error type of Gemini's result when its own turn limit (maxSessionTurns) ended the run. */
export const GEMINI_TURN_LIMIT_ERROR = "FatalTurnLimitedError";

/** The result event one of Gemini's result lines says, without the turn count. */
export function geminiResultEvent(line: GeminiLine, fallback?: string): AgentResultEvent {
  const stoppedBy = line.error?.type === GEMINI_TURN_LIMIT_ERROR ? "turns" : undefined;
  const ok = line.status === "success" && stoppedBy === undefined;
  const message = ok ? fallback : (line.error?.message ?? fallback);
  return agentEvent({ type: "result", ok, stoppedBy, message: resultMessage(message) });
}

/** A stateful, pure reader of one Gemini run. Never throws; bounded state. */
export class GeminiStreamReader extends JsonLinesReader<GeminiLine> {
  /** The pieces of the text being written, their bytes, and whether some were dropped. */
  private pieces: string[] = [];
  private pieceBytes = 0;
  private piecesCut = false;
  /** The last whole stretch of the model's text: the answer of a run that succeeds. */
  private answer: string | undefined;
  /** The last error Gemini reported on the way: the reason when its result gives none. */
  private lastError: string | undefined;

  constructor(private readonly ledger: GeminiLedger = new GeminiLedger()) {
    super(parseGeminiLine);
    ledger.beginRun();
  }

  protected read(line: GeminiLine): AgentEvent[] {
    switch (line.type) {
      case "init":
        return this.init(line);
      case "message":
        return line.role === "assistant" ? this.text(line.content ?? "") : this.boundary();
      case "tool_use":
        return [...this.flush(), ...this.openModelCall(), this.toolUse(line)];
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

  override end(): AgentEvent[] {
    return this.boundary();
  }

  private init(line: GeminiLine): AgentEvent[] {
    const sessionId = line.session_id;
    const model = line.model;
    return [
      agentEvent({
        type: "session",
        sessionId: sessionId !== undefined && SESSION_ID.test(sessionId) ? sessionId : undefined,
        model: model !== undefined && model.trim() !== "" ? eventName(model) : undefined,
      }),
    ];
  }

  /** A turn starts with the model call's first text or tool call. */
  private openModelCall(): AgentEvent[] {
    return this.openTurn === undefined ? [this.startTurn(this.ledger.startTurn())] : [];
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
    return [...this.flush(), ...this.closeTurn()];
  }

  private text(content: string): AgentEvent[] {
    if (content === "") return [];
    const events = this.openModelCall();
    if (this.piecesCut) return events;
    const room = AGENT_EVENT_LIMITS.textBytes - this.pieceBytes;
    const { text, cut } = cutText(content, room);
    this.pieces.push(text);
    this.pieceBytes += cut ? Buffer.byteLength(text) : Buffer.byteLength(content);
    this.piecesCut = cut;
    return events;
  }

  private toolUse(line: GeminiLine): AgentEvent {
    return agentEvent({
      type: "tool_use",
      name: eventName(line.tool_name),
      summary: summarizeGeminiInput(line.tool_name ?? "", line.parameters),
      id: eventId(line.tool_id),
    });
  }

  private toolResult(line: GeminiLine): AgentEvent {
    const ok = line.status === "success";
    return agentEvent({
      type: "tool_result",
      ok,
      id: eventId(line.tool_id),
      summary: optionalSummary(ok ? line.output : (line.error?.message ?? line.output)),
    });
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
