// What a task's agent has done so far, folded from its events: turns, tool calls, usage and
// cost, retries, denials, approvals, and the last few things it did. For `warden show`.
import { AGENT_EVENT_TYPE } from "../host/index.js";
import { definedFields } from "../lang/index.js";
import type { TaskEvent } from "../store/index.js";

/** How many of the latest agent events `show` lists. */
export const RECENT_EVENTS = 8;

export interface AgentActivity {
  turns: number;
  toolUses: number;
  toolErrors: number;
  retries: number;
  permissionDenials: number;
  approvalsAsked: number;
  approvalsDenied: number;
  /** The last usage the agent reported (totals so far). */
  usage?: { inputTokens: number; outputTokens: number; costUSD?: number };
  /** The latest agent, approval and message events, oldest first. */
  recent: TaskEvent[];
}

/** The event types `recent` lists. */
export const SHOWN_TYPES: ReadonlySet<string> = new Set([
  AGENT_EVENT_TYPE,
  "approval_asked",
  "approval_answered",
  "message_taken",
  "message_delivered",
]);

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Folds events into activity; undefined when the task has no agent events at all. */
export function agentActivity(events: readonly TaskEvent[]): AgentActivity | undefined {
  const activity: AgentActivity = {
    turns: 0,
    toolUses: 0,
    toolErrors: 0,
    retries: 0,
    permissionDenials: 0,
    approvalsAsked: 0,
    approvalsDenied: 0,
    recent: [],
  };
  let seen = false;
  for (const event of events) {
    if (!SHOWN_TYPES.has(event.type)) continue;
    seen = true;
    activity.recent.push(event);
    if (activity.recent.length > RECENT_EVENTS) activity.recent.shift();
    if (event.type === "approval_asked") activity.approvalsAsked++;
    if (event.type === "approval_answered" && event.decision !== "allow")
      activity.approvalsDenied++;
    if (event.type !== AGENT_EVENT_TYPE) continue;
    switch (event.kind) {
      case "turn_started":
        activity.turns = Math.max(activity.turns, num(event.turn) ?? 0);
        break;
      case "tool_use":
        activity.toolUses++;
        break;
      case "tool_result":
        if (event.ok !== true) activity.toolErrors++;
        break;
      case "retry":
        activity.retries++;
        break;
      case "permission_denied":
        activity.permissionDenials++;
        break;
      case "usage":
        activity.usage = definedFields({
          inputTokens: num(event.inputTokens) ?? 0,
          outputTokens: num(event.outputTokens) ?? 0,
          costUSD: num(event.costUSD),
        });
        break;
      default:
        break;
    }
  }
  return seen ? activity : undefined;
}
