// The agent's events as the runner reports them over the channel: claims from the sandbox. Each
// one is checked against the shape of warden's own AgentEvent, its texts cut to the sizes the
// adapters promise; an event of a type warden does not know, or with a field of the wrong kind,
// is dropped (and counted). Texts are kept as they came, cut but not cleaned: whoever shows
// them cleans them, and `--json` shows them raw.
import { z } from "zod";
import { memo } from "../../lang/index.js";
import { AGENT_EVENT_LIMITS, type AgentEvent } from "../../agents/index.js";
import { cutText } from "../../protocol/index.js";

/** The bounds on the fields no adapter cuts itself. */
const FIELD_BYTES = {
  /** A session id: a UUID in practice. */
  sessionId: 128,
  /** A model name. */
  model: 256,
  /** A tool's name or a tool call's id. */
  name: 256,
} as const;

/** The most turns, tokens or attempts a count may claim: far past any real run, and exact. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;

const count = memo(() => z.number().int().min(0).max(MAX_COUNT));
const amount = memo(() => z.number().min(0));

function cut(text: string, max: number): string {
  return cutText(text, max).text;
}

const summary = (text: string): string => cut(text, AGENT_EVENT_LIMITS.summaryBytes);

const schemas = memo(
  () =>
    ({
      session: z
        .object({ sessionId: z.string().optional(), model: z.string().optional() })
        .transform((e): AgentEvent => {
          const event: { type: "session"; sessionId?: string; model?: string } = {
            type: "session",
          };
          if (e.sessionId !== undefined) event.sessionId = cut(e.sessionId, FIELD_BYTES.sessionId);
          if (e.model !== undefined) event.model = cut(e.model, FIELD_BYTES.model);
          return event;
        }),
      turn_started: z
        .object({ turn: count() })
        .transform((e): AgentEvent => ({ type: "turn_started", turn: e.turn })),
      turn_ended: z
        .object({ turn: count() })
        .transform((e): AgentEvent => ({ type: "turn_ended", turn: e.turn })),
      assistant_text: z
        .object({ text: z.string(), cut: z.boolean().optional() })
        .transform((e): AgentEvent => {
          const kept = cutText(e.text, AGENT_EVENT_LIMITS.textBytes);
          return { type: "assistant_text", text: kept.text, cut: kept.cut || e.cut === true };
        }),
      tool_use: z
        .object({ id: z.string().optional(), name: z.string(), summary: z.string() })
        .transform((e): AgentEvent => {
          const event: { type: "tool_use"; id?: string; name: string; summary: string } = {
            type: "tool_use",
            name: cut(e.name, FIELD_BYTES.name),
            summary: summary(e.summary),
          };
          if (e.id !== undefined) event.id = cut(e.id, FIELD_BYTES.name);
          return event;
        }),
      tool_result: z
        .object({ id: z.string().optional(), ok: z.boolean(), summary: z.string().optional() })
        .transform((e): AgentEvent => {
          const event: { type: "tool_result"; id?: string; ok: boolean; summary?: string } = {
            type: "tool_result",
            ok: e.ok,
          };
          if (e.id !== undefined) event.id = cut(e.id, FIELD_BYTES.name);
          if (e.summary !== undefined) event.summary = summary(e.summary);
          return event;
        }),
      usage: z
        .object({ inputTokens: count(), outputTokens: count(), costUSD: amount().optional() })
        .transform((e): AgentEvent => {
          const event: {
            type: "usage";
            inputTokens: number;
            outputTokens: number;
            costUSD?: number;
          } = { type: "usage", inputTokens: e.inputTokens, outputTokens: e.outputTokens };
          if (e.costUSD !== undefined) event.costUSD = e.costUSD;
          return event;
        }),
      retry: z
        .object({
          attempt: count(),
          status: count().optional(),
          message: z.string().optional(),
        })
        .transform((e): AgentEvent => {
          const event: { type: "retry"; attempt: number; status?: number; message?: string } = {
            type: "retry",
            attempt: e.attempt,
          };
          if (e.status !== undefined) event.status = e.status;
          if (e.message !== undefined) event.message = summary(e.message);
          return event;
        }),
      permission_denied: z
        .object({ tool: z.string(), summary: z.string().optional() })
        .transform((e): AgentEvent => {
          const event: { type: "permission_denied"; tool: string; summary?: string } = {
            type: "permission_denied",
            tool: cut(e.tool, FIELD_BYTES.name),
          };
          if (e.summary !== undefined) event.summary = summary(e.summary);
          return event;
        }),
      output: z
        .object({
          stream: z.enum(["stdout", "stderr"]),
          text: z.string(),
          cut: z.boolean().optional(),
          skipped: count().optional(),
        })
        .transform((e): AgentEvent => {
          const kept = cutText(e.text, AGENT_EVENT_LIMITS.outputLineBytes);
          const event: {
            type: "output";
            stream: "stdout" | "stderr";
            text: string;
            cut: boolean;
            skipped?: number;
          } = {
            type: "output",
            stream: e.stream,
            text: kept.text,
            cut: kept.cut || e.cut === true,
          };
          if (e.skipped !== undefined && e.skipped > 0) event.skipped = e.skipped;
          return event;
        }),
      result: z
        .object({
          ok: z.boolean(),
          stoppedBy: z.enum(["turns", "budget"]).optional(),
          turns: count().optional(),
          costUSD: amount().optional(),
          message: z.string().optional(),
        })
        .transform((e): AgentEvent => {
          const event: {
            type: "result";
            ok: boolean;
            stoppedBy?: "turns" | "budget";
            turns?: number;
            costUSD?: number;
            message?: string;
          } = { type: "result", ok: e.ok };
          if (e.stoppedBy !== undefined) event.stoppedBy = e.stoppedBy;
          if (e.turns !== undefined) event.turns = e.turns;
          if (e.costUSD !== undefined) event.costUSD = e.costUSD;
          if (e.message !== undefined) event.message = cut(e.message, AGENT_EVENT_LIMITS.textBytes);
          return event;
        }),
    }) satisfies Record<AgentEvent["type"], z.ZodType<AgentEvent>>,
);

function isKnownType(type: unknown): type is keyof ReturnType<typeof schemas> {
  return typeof type === "string" && Object.hasOwn(schemas(), type);
}

/**
 * One event from the channel as warden records it, or undefined for one it does not take: an
 * unknown type, a missing field, a field of the wrong kind. Fields it does not know are left out.
 */
export function checkAgentEvent(value: unknown): AgentEvent | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const type = (value as { type?: unknown }).type;
  if (!isKnownType(type)) return undefined;
  const parsed = schemas()[type].safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
