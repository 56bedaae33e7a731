// The task spec as spec.json holds it (StoredSpec), written once and never rewritten, and the
// rules of its prompt and hop. The prompt lives beside it in prompt.md. What a creator gives is
// checked in specInput.ts.
import { cleanLine, cutText, MAX_HOP, TASK_ID } from "../protocol/index.js";
import {
  HopTooDeepError,
  notText,
  overLimit,
  PromptEmptyError,
  PromptNotTextError,
  PromptTooBigError,
} from "./errors.js";
import { decodeInputText } from "./inputText.js";
import { STORE_LIMITS } from "./limits.js";
import {
  arrayOf,
  anything,
  int,
  literal,
  matching,
  nullable,
  optional,
  recordOf,
  strictObject,
  text,
  type ShapeOf,
} from "./recordShape.js";

/** spec.json. `ancestors` is the immutable chain root-first, so policy checks read one file. */
export const isStoredSpec = strictObject({
  version: literal(1),
  id: matching(TASK_ID),
  createdAt: int(),
  repo: optional(text),
  base: optional(text),
  settings: recordOf(anything),
  deadline: int(),
  parent: nullable(matching(TASK_ID)),
  ancestors: arrayOf(matching(TASK_ID), MAX_HOP + 1),
  hop: int(0, MAX_HOP),
  labels: recordOf(text),
  /** The prompt's first non-blank line, cleaned and cut, for lists. */
  title: text,
  promptBytes: int(),
});

export type StoredSpec = ShapeOf<typeof isStoredSpec>;

/** A task's immutable spec with its prompt, as an executor or `get` sees it. */
export type TaskSpec = StoredSpec & { prompt: string };

/** The prompt's text, checked: UTF-8 without NUL, not blank, at most 1 MiB. */
export function checkPrompt(prompt: string | Uint8Array): string {
  // Bytes over the bound are refused before they are decoded.
  if (typeof prompt !== "string" && prompt.byteLength > STORE_LIMITS.promptBytes) {
    throw new PromptTooBigError(overLimit("prompt", prompt.byteLength, STORE_LIMITS.promptBytes));
  }
  const decoded = decodeInputText(prompt);
  if ("notText" in decoded) throw new PromptNotTextError(notText("prompt", decoded.notText));
  const text = decoded.text;
  if (text.trim() === "") throw new PromptEmptyError("the prompt is empty");
  const bytes = Buffer.byteLength(text);
  if (bytes > STORE_LIMITS.promptBytes)
    throw new PromptTooBigError(overLimit("prompt", bytes, STORE_LIMITS.promptBytes));
  return text;
}

/** The title lists show: the first non-blank line of the prompt, cleaned, cut to 256 bytes. */
export function titleOf(prompt: string): string {
  const line = prompt.split("\n").find((l) => l.trim() !== "") ?? "";
  return cutText(cleanLine(line.trim()), STORE_LIMITS.titleBytes).text;
}

/**
 * The hop a new task records: its own, but never less than one past its parent's (creating a
 * child hands work to another agent), and never past MAX_HOP.
 */
export function resolveHop(own: number | undefined, parentHop: number | undefined): number {
  const floor = parentHop === undefined ? 0 : parentHop + 1;
  const hop = Math.max(own ?? floor, floor);
  if (hop > MAX_HOP) {
    throw new HopTooDeepError(
      `handing this work on would make it hop ${hop}, past the limit of ${MAX_HOP}`,
    );
  }
  return hop;
}
