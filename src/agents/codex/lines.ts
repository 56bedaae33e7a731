// The lines `codex exec --json` writes (Codex CLI 0.171), as warden reads them: one JSON object
// a line with a `type`. Every line came from the sandbox, so each is read leniently and
// defensively: a line that is too long, not JSON or not an object reads as nothing, and a field
// of the wrong type reads as absent rather than spoiling the line.
//
// The kinds, by `type`:
// - `thread.started` {thread_id}: the session; its id resumes it (`codex exec resume <id>`);
// - `turn.started`, `turn.completed` {usage}, `turn.failed` {error: {message}}: one turn is one
//   user message to its end. `usage` is the thread's running total, and a resumed thread's
//   total includes the turns of the runs before (what the ledger turns into deltas);
// - `item.started` / `item.updated` / `item.completed` {item}: an item has an `id` and a
//   `type`: `agent_message` {text}, `reasoning` {text}, `plan` {text}, `command_execution`
//   {command, aggregated_output, exit_code, status}, `file_change` {changes: [{path, kind}],
//   status}, `mcp_tool_call` {server, tool, arguments, result, error, status}, `web_search`
//   {query}, `collab_tool_call` {tool, prompt, status}, `todo_list` {items}, `error` {message}
//   (a warning, not a failure);
// - `error` {message}: a stream error. "Reconnecting... 2/5 (why)" is a retry; anything else
//   is the error a `turn.failed` then reports;
// - anything else (`item.plan.delta`, `request_user_input`, newer kinds) is ignored.
import { z } from "zod";
import { memo } from "../../lang/index.js";
import {
  isObject,
  lenientCount as count,
  lenientText as text,
  readStreamLine,
} from "../jsonLines.js";

const message = memo(() => z.object({ message: text() }).nullish().catch(undefined));

const usageSchema = memo(() =>
  z.object({
    input_tokens: count(),
    cached_input_tokens: count(),
    output_tokens: count(),
  }),
);

const itemSchema = memo(() =>
  z.object({
    id: text(),
    type: text(),
    text: text(),
    command: text(),
    aggregated_output: text(),
    exit_code: z.number().int().nullish().catch(undefined),
    status: text(),
    changes: z
      .array(z.object({ path: text(), kind: text() }).catch({ path: undefined, kind: undefined }))
      .optional()
      .catch(undefined),
    server: text(),
    tool: text(),
    arguments: z.unknown().optional(),
    result: z
      .object({
        content: z
          .array(z.object({ text: text() }).catch({ text: undefined }))
          .optional()
          .catch(undefined),
      })
      .nullish()
      .catch(undefined),
    error: message(),
    query: text(),
    prompt: text(),
    message: text(),
  }),
);

const lineSchema = memo(() =>
  z.object({
    type: z.string(),
    thread_id: text(),
    usage: usageSchema().optional().catch(undefined),
    item: itemSchema().optional().catch(undefined),
    error: message(),
    message: text(),
  }),
);

export type CodexLine = z.infer<ReturnType<typeof lineSchema>>;
export type CodexItem = z.infer<ReturnType<typeof itemSchema>>;
export type CodexUsageLine = z.infer<ReturnType<typeof usageSchema>>;

/** Parses one line of `codex exec --json`; undefined when it cannot be read. */
export function parseCodexLine(raw: string): CodexLine | undefined {
  return readStreamLine(raw, lineSchema());
}

/** Whether a parsed JSON value is a line that ends a Codex turn (its own account of the run). */
export function isCodexTurnEnd(value: unknown): boolean {
  return isObject(value) && (value.type === "turn.completed" || value.type === "turn.failed");
}
