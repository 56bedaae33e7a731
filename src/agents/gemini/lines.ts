// The lines `gemini --output-format stream-json` writes (Gemini CLI 0.61), as warden reads them:
// one JSON object a line with a `type`. Every line came from the sandbox, so each is read
// leniently and defensively: a line that is too long, not JSON or not an object reads as
// nothing, and a field of the wrong type reads as absent rather than spoiling the line.
//
// The kinds, by `type`:
// - `init` {session_id, model}: the session; its id resumes it (`--resume=<id>`);
// - `message` {role: "user" | "assistant", content, delta}: the user's input echoed back, then
//   the model's text in pieces (`delta: true`) to be joined;
// - `tool_use` {tool_name, tool_id, parameters}, `tool_result` {tool_id, status: "success" |
//   "error", output, error: {type, message}}: the model asks for tools at the end of a model
//   call, Gemini runs them, and the next call follows;
// - `error` {severity: "warning" | "error", message}: a loop, a blocked call, an invalid
//   response; the run goes on or ends with a `result`;
// - `result` {status: "success" | "error", error: {type, message}, stats}: the end of the run.
//   `stats` (total_tokens, input_tokens, output_tokens, cached, duration_ms, tool_calls, models)
//   counts this process only: a resumed session starts again from zero.
// Errors that stop Gemini before its session (authentication: exit 41) write no line at all.
import { z } from "zod";
import { memo } from "../../lang/index.js";
import {
  isObject,
  lenientCount as count,
  lenientText as text,
  readStreamLine,
  type JsonObject,
} from "../jsonLines.js";

const errorSchema = memo(() =>
  z.object({ type: text(), message: text() }).nullish().catch(undefined),
);

const statsSchema = memo(() => z.object({ input_tokens: count(), output_tokens: count() }));

const lineSchema = memo(() =>
  z.object({
    type: z.string(),
    session_id: text(),
    model: text(),
    role: text(),
    content: text(),
    tool_name: text(),
    tool_id: text(),
    parameters: z.record(z.string(), z.unknown()).optional().catch(undefined),
    status: text(),
    output: text(),
    error: errorSchema(),
    severity: text(),
    message: text(),
    stats: statsSchema().optional().catch(undefined),
  }),
);

export type GeminiLine = z.infer<ReturnType<typeof lineSchema>>;

/** Parses one line of Gemini's stream-json; undefined when it cannot be read. */
export function parseGeminiLine(raw: string): GeminiLine | undefined {
  return readStreamLine(raw, lineSchema());
}

/** Whether a parsed JSON value is Gemini's `result` line (its own account of the run). */
export function isGeminiResult(value: unknown): value is JsonObject {
  return isObject(value) && value.type === "result";
}
