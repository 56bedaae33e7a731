// Reads one run of `codex exec --json` into warden's events. What each kind of line means is in
// lines.ts. A run is one turn (the prompt, or one resumed message); the turn numbers and the
// usage continue across the task's runs through the ledger the runner keeps for the task.
import { RecentMap } from "../../lang/index.js";
import { cutText } from "../../protocol/index.js";
import { agentEvent, type AgentEvent } from "../agentEvent.js";
import { eventId, optionalSummary, resultMessage } from "../eventText.js";
import { JsonLinesReader } from "../jsonLines.js";
import { SESSION_ID } from "../launchChecks.js";
import { AGENT_EVENT_LIMITS, CODEX_LIMITS } from "../limits.js";
import { CodexLedger } from "./ledger.js";
import { parseCodexLine, type CodexItem, type CodexLine } from "./lines.js";
import {
  codexToolName,
  codexToolOk,
  summarizeCodexInput,
  summarizeCodexResult,
} from "./summary.js";

/** How Codex starts a retry's message: "Reconnecting... 2/5 (why)", "Reconnecting... waiting". */
const RECONNECTING = "Reconnecting...";

/** The attempt number right after it, when it has one. */
const ATTEMPT = /^\s*(\d{1,9})\s*\//u;

/** An HTTP status quoted in an error ("unexpected status 404 Not Found: ..."). */
const STATUS = /\bstatus:? ([1-5]\d\d)\b/u;

/** The reason in a retry's parentheses: from the first "(" to the last ")". */
function retryReason(message: string): string {
  const open = message.indexOf("(");
  const close = message.lastIndexOf(")");
  return open === -1 || close <= open ? "" : message.slice(open + 1, close);
}

/** A stateful, pure reader of one Codex run. Never throws; bounded state. */
export class CodexStreamReader extends JsonLinesReader<CodexLine> {
  private threadId = "";
  /** The turn's last agent message, its answer; a plan stands in when there is none. */
  private answer: string | undefined;
  private plan: string | undefined;
  /** The last stream error that was not a retry: the reason a failed turn gives. */
  private lastError: string | undefined;
  /** Retries seen in this run, for a retry line that does not number itself. */
  private retries = 0;
  private resultSent = false;
  /** Tool items reported as started, by id. */
  private readonly started = new RecentMap<string, true>(CODEX_LIMITS.rememberedItems);

  constructor(private readonly ledger: CodexLedger = new CodexLedger()) {
    super(parseCodexLine);
  }

  protected read(line: CodexLine): AgentEvent[] {
    switch (line.type) {
      case "thread.started":
        return this.threadStarted(line);
      case "turn.started":
        return this.turnStarted();
      case "turn.completed":
        return this.turnCompleted(line);
      case "turn.failed":
        return this.turnFailed(line.error?.message ?? undefined);
      case "item.started":
        return line.item === undefined ? [] : this.itemStarted(line.item);
      case "item.completed":
        return line.item === undefined ? [] : this.itemCompleted(line.item);
      case "error":
        return this.streamError(line.message);
      default:
        return [];
    }
  }

  override end(): AgentEvent[] {
    // A run that stopped with an error but no turn.failed (killed while reconnecting) still
    // says why; one that just stopped says nothing: its outcome is synthesized from the exit.
    if (this.resultSent || this.lastError === undefined) return this.closeTurn();
    return [...this.closeTurn(), this.result(false, this.lastError)];
  }

  private result(ok: boolean, message: string | undefined): AgentEvent {
    this.resultSent = true;
    return agentEvent({
      type: "result",
      ok,
      turns: this.ledger.turns,
      message: resultMessage(message),
    });
  }

  private threadStarted(line: CodexLine): AgentEvent[] {
    const id = line.thread_id;
    if (id === undefined || !SESSION_ID.test(id)) return [{ type: "session" }];
    this.threadId = id;
    return [{ type: "session", sessionId: id }];
  }

  private turnStarted(): AgentEvent[] {
    const events = this.closeTurn();
    this.answer = undefined;
    this.plan = undefined;
    this.lastError = undefined;
    this.resultSent = false;
    events.push(this.startTurn(this.ledger.startTurn()));
    return events;
  }

  private turnCompleted(line: CodexLine): AgentEvent[] {
    const events = this.closeTurn();
    if (line.usage !== undefined) {
      const tokens = this.ledger.addSnapshot(this.threadId, line.usage);
      events.push({ type: "usage", ...tokens });
    }
    events.push(this.result(true, this.answer ?? this.plan));
    return events;
  }

  private turnFailed(message: string | undefined): AgentEvent[] {
    const why = message ?? this.lastError ?? "Codex CLI reported that the turn failed";
    return [...this.closeTurn(), this.result(false, why)];
  }

  private streamError(message: string | undefined): AgentEvent[] {
    if (message === undefined) return [];
    // Only the head of a message is looked at, so a hostile one costs no more than a short one.
    const head = cutText(message, AGENT_EVENT_LIMITS.textBytes).text;
    if (!head.startsWith(RECONNECTING)) {
      this.lastError = head;
      return [];
    }
    this.retries += 1;
    const attempt = ATTEMPT.exec(head.slice(RECONNECTING.length))?.[1];
    const why = retryReason(head);
    const status = STATUS.exec(why)?.[1];
    return [
      agentEvent({
        type: "retry",
        attempt: attempt === undefined ? this.retries : Number(attempt),
        status: status === undefined ? undefined : Number(status),
        message: optionalSummary(why),
      }),
    ];
  }

  private toolUse(item: CodexItem, name: string): AgentEvent {
    return agentEvent({
      type: "tool_use",
      name,
      summary: summarizeCodexInput(item),
      id: eventId(item.id),
    });
  }

  private itemStarted(item: CodexItem): AgentEvent[] {
    const name = codexToolName(item);
    if (name === undefined) return [];
    if (item.id !== undefined) this.started.set(item.id, true);
    return [this.toolUse(item, name)];
  }

  private itemCompleted(item: CodexItem): AgentEvent[] {
    switch (item.type ?? "") {
      case "agent_message":
      case "plan": {
        if (item.text === undefined || item.text.trim() === "") return [];
        const { text, cut } = cutText(item.text, AGENT_EVENT_LIMITS.textBytes);
        if (item.type === "plan") this.plan = text;
        else this.answer = text;
        return [{ type: "assistant_text", text, cut }];
      }
      default:
        return this.toolCompleted(item);
    }
  }

  private toolCompleted(item: CodexItem): AgentEvent[] {
    const name = codexToolName(item);
    if (name === undefined) return [];
    const events: AgentEvent[] = [];
    // Codex reports some items only when they are done (a file change, a declined command).
    const seen = item.id !== undefined && this.started.delete(item.id);
    if (!seen) events.push(this.toolUse(item, name));
    if (item.type === "command_execution" && item.status === "declined") {
      const summary = summarizeCodexInput(item);
      events.push(
        agentEvent({ type: "permission_denied", tool: name, summary: summary || undefined }),
      );
    }
    events.push(
      agentEvent({
        type: "tool_result",
        ok: codexToolOk(item),
        id: eventId(item.id),
        summary: summarizeCodexResult(item),
      }),
    );
    return events;
  }
}

/**
 * A fresh reader for one Codex run. Give every run of a task the same ledger, so that turn
 * numbers and usage continue across resumes; without one, the run stands alone.
 */
export function codexStreamReader(ledger?: CodexLedger): CodexStreamReader {
  return new CodexStreamReader(ledger);
}
