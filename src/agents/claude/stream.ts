// Reads Claude Code's `--output-format stream-json --verbose` stdout into warden's events.
//
// The lines it reads (anything else is ignored, so a newer Claude Code adds kinds freely):
// - `system` `init`: the session and model (again for each further message; told once a session);
// - `system` `api_retry`: a failed API call about to be retried;
// - `system` `permission_denied`: a tool call the permission mode or a rule refused;
// - `assistant`: one line per content block of a model response, all with the response's
//   `message.id`; text and tool_use blocks. A response is one turn. Lines of a sub-agent
//   (`parent_tool_use_id` set) and the synthetic message Claude Code writes for an API error
//   (the result carries that error) are not the model's turns and are skipped;
// - `user`: the results of the tool calls of the turn before;
// - `result`: the end of one user message's run, with its usage, cost and outcome.
import { RecentMap } from "../../lang/index.js";
import { cutText } from "../../protocol/index.js";
import { agentEvent, type AgentEvent } from "../agentEvent.js";
import { eventId, eventName, optionalSummary, summaryLine } from "../eventText.js";
import { JsonLinesReader, isObject, readJsonObject, type JsonObject } from "../jsonLines.js";
import { UsageLedger } from "../ledger.js";
import { AGENT_EVENT_LIMITS, CLAUDE_LIMITS } from "../limits.js";
import { amount, count, objects, text } from "./fields.js";
import { claudeResultEvent } from "./outcome.js";
import { summarizeToolInput, summarizeToolResult } from "./summary.js";

interface ToolUse {
  readonly name: string;
  readonly summary: string;
}

/** A stateful, pure reader of one Claude Code run. */
export class ClaudeStreamReader extends JsonLinesReader<JsonObject> {
  private sessionId: string | undefined;
  /** Turns started in this run, across all its messages, and the tokens of its results. */
  private readonly ledger = new UsageLedger();
  /** The id of the model response whose turn is open, if one is. */
  private openResponse: string | undefined;
  /** Tool calls seen, by id, so that a denial can say what it denied. */
  private readonly toolUses = new RecentMap<string, ToolUse>(CLAUDE_LIMITS.rememberedToolUses);
  /** Tool calls already reported as denied, so the result's list does not report them twice. */
  private readonly denied = new RecentMap<string, true>(CLAUDE_LIMITS.rememberedToolUses);

  constructor() {
    super(readJsonObject);
  }

  protected read(line: JsonObject): AgentEvent[] {
    switch (line.type) {
      case "system":
        return this.system(line);
      case "assistant":
        return this.assistant(line);
      case "user":
        return this.user(line);
      case "result":
        return this.result(line);
      default:
        return [];
    }
  }

  private system(line: JsonObject): AgentEvent[] {
    switch (line.subtype) {
      case "init": {
        const sessionId = text(line.session_id);
        if (sessionId !== undefined && sessionId === this.sessionId) return [];
        this.sessionId = sessionId;
        const model = text(line.model);
        const modelName =
          model === undefined ? undefined : cutText(model, CLAUDE_LIMITS.modelBytes);
        return [
          agentEvent({ type: "session", sessionId: eventId(sessionId), model: modelName?.text }),
        ];
      }
      case "api_retry":
        return [
          agentEvent({
            type: "retry",
            attempt: count(line.attempt) ?? 0,
            status: count(line.error_status),
            message: optionalSummary(text(line.error)),
          }),
        ];
      case "permission_denied": {
        const id = text(line.tool_use_id);
        if (id !== undefined) this.denied.set(id, true);
        const known = id === undefined ? undefined : this.toolUses.get(id);
        return [
          agentEvent({
            type: "permission_denied",
            tool: known?.name ?? eventName(text(line.tool_name)),
            // A call whose input says nothing has an empty summary: then there is none.
            summary: (known?.summary ?? summaryLine(text(line.message) ?? "")) || undefined,
          }),
        ];
      }
      default:
        return [];
    }
  }

  private assistant(line: JsonObject): AgentEvent[] {
    const message = line.message;
    if (!isObject(message)) return [];
    if (line.parent_tool_use_id !== undefined && line.parent_tool_use_id !== null) return [];
    if (line.is_api_error_message === true || message.model === "<synthetic>") return [];
    const events: AgentEvent[] = [];
    const id = text(message.id) ?? text(line.uuid) ?? "";
    if (this.openTurn === undefined || id !== this.openResponse || id === "") {
      events.push(...this.closeTurn());
      this.openResponse = id;
      events.push(this.startTurn(this.ledger.startTurn()));
    }
    for (const block of objects(message.content)) {
      if (block.type === "text") {
        const said = text(block.text) ?? "";
        if (said.trim() === "") continue;
        const { text: kept, cut } = cutText(said, AGENT_EVENT_LIMITS.textBytes);
        events.push({ type: "assistant_text", text: kept, cut });
      } else if (block.type === "tool_use") {
        const name = eventName(text(block.name));
        const use = { name, summary: summarizeToolInput(name, block.input) };
        const toolId = text(block.id);
        if (toolId !== undefined) this.toolUses.set(toolId, use);
        events.push(agentEvent({ type: "tool_use", id: eventId(toolId), ...use }));
      }
    }
    return events;
  }

  private user(line: JsonObject): AgentEvent[] {
    const message = line.message;
    if (!isObject(message)) return [];
    if (line.parent_tool_use_id !== undefined && line.parent_tool_use_id !== null) return [];
    const events: AgentEvent[] = [];
    for (const block of objects(message.content)) {
      if (block.type !== "tool_result") continue;
      if (events.length === 0) events.push(...this.closeTurn());
      events.push(
        agentEvent({
          type: "tool_result",
          ok: block.is_error !== true,
          id: eventId(text(block.tool_use_id)),
          summary: summarizeToolResult(block.content),
        }),
      );
    }
    return events;
  }

  private result(line: JsonObject): AgentEvent[] {
    const events: AgentEvent[] = this.closeTurn();
    for (const denial of objects(line.permission_denials)) {
      const id = text(denial.tool_use_id);
      if (id !== undefined && this.denied.has(id)) continue;
      if (id !== undefined) this.denied.set(id, true);
      const tool = eventName(text(denial.tool_name));
      const summary = summarizeToolInput(tool, denial.tool_input);
      events.push(agentEvent({ type: "permission_denied", tool, summary: summary || undefined }));
    }
    // A result's usage covers its own message; the cost is the session's so far.
    const usage = isObject(line.usage) ? line.usage : {};
    const tokens = this.ledger.add({
      inputTokens:
        (count(usage.input_tokens) ?? 0) +
        (count(usage.cache_creation_input_tokens) ?? 0) +
        (count(usage.cache_read_input_tokens) ?? 0),
      outputTokens: count(usage.output_tokens) ?? 0,
    });
    events.push(agentEvent({ type: "usage", ...tokens, costUSD: amount(line.total_cost_usd) }));
    events.push(claudeResultEvent(line));
    return events;
  }
}
