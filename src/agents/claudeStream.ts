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
import { AGENT_EVENT_LIMITS, type AgentEvent, type StreamReader } from "./agentEvent.js";
import { CLAUDE_LIMITS } from "./claudeLimits.js";
import { amount, count, isObject, objects, text, type JsonObject } from "./claudeFields.js";
import { claudeResultEvent } from "./claudeOutcome.js";
import { summarizeToolInput, summarizeToolResult, toolName } from "./claudeToolSummary.js";
import { summaryLine } from "./eventText.js";
import { cutText } from "../protocol/index.js";

interface ToolUse {
  readonly name: string;
  readonly summary: string;
}

/** Parses one line defensively: too long, not JSON or not an object reads as nothing. */
function parseLine(line: string): JsonObject | undefined {
  // A string's UTF-16 length is at least a third of its UTF-8 bytes: the cheap check first.
  if (line.length > AGENT_EVENT_LIMITS.lineBytes) return undefined;
  if (Buffer.byteLength(line) > AGENT_EVENT_LIMITS.lineBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isObject(value) ? value : undefined;
}

/** A stateful, pure reader of one Claude Code run. */
export class ClaudeStreamReader implements StreamReader {
  private sessionId: string | undefined;
  /** Turns started in this run, across all its messages. */
  private turns = 0;
  /** The id of the model response whose turn is open, if one is. */
  private openTurn: string | undefined;
  /** Tool calls seen, by id, the oldest first (a Map keeps insertion order). */
  private readonly toolUses = new Map<string, ToolUse>();
  /** Tool calls already reported as denied, so the result's list does not report them twice. */
  private readonly denied = new Set<string>();
  private inputTokens = 0;
  private outputTokens = 0;
  /** Lines that were not JSON objects or were too long: counted, never parsed. */
  private unreadable = 0;

  /** How many lines could not be read. */
  get unreadableLines(): number {
    return this.unreadable;
  }

  line(raw: string): AgentEvent[] {
    const line = parseLine(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
    if (line === undefined) {
      if (raw.trim() !== "") this.unreadable += 1;
      return [];
    }
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

  end(): AgentEvent[] {
    return this.closeTurn();
  }

  private closeTurn(): AgentEvent[] {
    if (this.openTurn === undefined) return [];
    this.openTurn = undefined;
    return [{ type: "turn_ended", turn: this.turns }];
  }

  private remember(id: string, use: ToolUse): void {
    this.toolUses.delete(id);
    this.toolUses.set(id, use);
    if (this.toolUses.size > CLAUDE_LIMITS.rememberedToolUses) {
      const oldest = this.toolUses.keys().next();
      if (oldest.done !== true) this.toolUses.delete(oldest.value);
    }
  }

  private markDenied(id: string): void {
    this.denied.add(id);
    if (this.denied.size > CLAUDE_LIMITS.rememberedToolUses) {
      const oldest = this.denied.values().next();
      if (oldest.done !== true) this.denied.delete(oldest.value);
    }
  }

  private system(line: JsonObject): AgentEvent[] {
    switch (line.subtype) {
      case "init": {
        const sessionId = text(line.session_id);
        if (sessionId !== undefined && sessionId === this.sessionId) return [];
        this.sessionId = sessionId;
        const event: { type: "session"; sessionId?: string; model?: string } = { type: "session" };
        if (sessionId !== undefined) event.sessionId = cutText(sessionId, 128).text;
        const model = text(line.model);
        if (model !== undefined) event.model = cutText(model, 256).text;
        return [event];
      }
      case "api_retry": {
        const event: { type: "retry"; attempt: number; status?: number; message?: string } = {
          type: "retry",
          attempt: count(line.attempt) ?? 0,
        };
        const status = count(line.error_status);
        if (status !== undefined) event.status = status;
        const error = text(line.error);
        if (error !== undefined && error.trim() !== "") event.message = summaryLine(error);
        return [event];
      }
      case "permission_denied": {
        const id = text(line.tool_use_id);
        if (id !== undefined) this.markDenied(id);
        const known = id === undefined ? undefined : this.toolUses.get(id);
        const event: { type: "permission_denied"; tool: string; summary?: string } = {
          type: "permission_denied",
          tool: known?.name ?? toolName(line.tool_name),
        };
        const summary = known?.summary ?? summaryLine(text(line.message) ?? "");
        if (summary !== "") event.summary = summary;
        return [event];
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
    if (id !== this.openTurn || id === "") {
      events.push(...this.closeTurn());
      this.turns += 1;
      this.openTurn = id;
      events.push({ type: "turn_started", turn: this.turns });
    }
    for (const block of objects(message.content)) {
      if (block.type === "text") {
        const said = text(block.text) ?? "";
        if (said.trim() === "") continue;
        const { text: kept, cut } = cutText(said, AGENT_EVENT_LIMITS.textBytes);
        events.push({ type: "assistant_text", text: kept, cut });
      } else if (block.type === "tool_use") {
        const name = toolName(block.name);
        const use = { name, summary: summarizeToolInput(name, block.input) };
        const toolId = text(block.id);
        if (toolId !== undefined) this.remember(toolId, use);
        events.push(
          toolId === undefined
            ? { type: "tool_use", ...use }
            : { type: "tool_use", id: cutText(toolId, 128).text, ...use },
        );
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
      const event: { type: "tool_result"; id?: string; ok: boolean; summary?: string } = {
        type: "tool_result",
        ok: block.is_error !== true,
      };
      const id = text(block.tool_use_id);
      if (id !== undefined) event.id = cutText(id, 128).text;
      const summary = summarizeToolResult(block.content);
      if (summary !== undefined) event.summary = summary;
      events.push(event);
    }
    return events;
  }

  private result(line: JsonObject): AgentEvent[] {
    const events: AgentEvent[] = this.closeTurn();
    for (const denial of objects(line.permission_denials)) {
      const id = text(denial.tool_use_id);
      if (id !== undefined && this.denied.has(id)) continue;
      if (id !== undefined) this.markDenied(id);
      const tool = toolName(denial.tool_name);
      const summary = summarizeToolInput(tool, denial.tool_input);
      events.push(
        summary === ""
          ? { type: "permission_denied", tool }
          : { type: "permission_denied", tool, summary },
      );
    }
    // A result's usage covers its own message; the cost is the session's so far.
    const usage = isObject(line.usage) ? line.usage : {};
    this.inputTokens +=
      (count(usage.input_tokens) ?? 0) +
      (count(usage.cache_creation_input_tokens) ?? 0) +
      (count(usage.cache_read_input_tokens) ?? 0);
    this.outputTokens += count(usage.output_tokens) ?? 0;
    const costUSD = amount(line.total_cost_usd);
    events.push(
      costUSD === undefined
        ? { type: "usage", inputTokens: this.inputTokens, outputTokens: this.outputTokens }
        : {
            type: "usage",
            inputTokens: this.inputTokens,
            outputTokens: this.outputTokens,
            costUSD,
          },
    );
    events.push(claudeResultEvent(line));
    return events;
  }
}
