// The task spec: what a creator gives (TaskSpecInput, checked with zod) and what spec.json holds
// (StoredSpec), written once and never rewritten. The prompt lives beside it in prompt.md.
import { z } from "zod";
import { cleanLine, cutText, firstIssue, MAX_HOP, TASK_ID } from "../protocol/index.js";
import {
  BadSpecError,
  HopTooDeepError,
  notText,
  overLimit,
  PromptEmptyError,
  PromptNotTextError,
  PromptTooBigError,
} from "./errors.js";
import { decodeInputText } from "./inputText.js";
import { STORE_LIMITS } from "./limits.js";

// Control characters in a path, a commit name or a label would reach a terminal or a command line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;

const specText = z
  .string()
  .min(1)
  .refine((s) => Buffer.byteLength(s) <= STORE_LIMITS.specTextBytes, "is too long")
  .refine((s) => !CONTROL.test(s), "has a control character");

const jsonObject = z.record(z.string(), z.unknown()).refine((value) => {
  try {
    return Buffer.byteLength(JSON.stringify(value)) <= STORE_LIMITS.settingsBytes;
  } catch {
    return false;
  }
}, `is not a JSON object of at most ${STORE_LIMITS.settingsBytes} bytes`);

const labels = z
  .record(
    z.string().regex(LABEL_KEY, "a label name is letters, digits, . _ / - (at most 63)"),
    z
      .string()
      .refine((s) => Buffer.byteLength(s) <= STORE_LIMITS.labelValueBytes, "is too long")
      .refine((s) => !CONTROL.test(s), "has a control character"),
  )
  .refine((l) => Object.keys(l).length <= STORE_LIMITS.labels, "has too many labels");

/** What a creator gives `Tasks.create`. */
export const taskSpecInputSchema = z
  .object({
    /**
     * What the task is to do: UTF-8 text without NUL, not empty, at most 1 MiB. Bytes (a file's
     * or a pipe's) are decoded here, so bytes that are not UTF-8 are refused, never replaced.
     */
    prompt: z.union([
      z.string(),
      z.custom<Uint8Array>((v) => v instanceof Uint8Array, "is neither text nor bytes"),
    ]),
    /** The repository the host works on (a path on the host); opaque to the store. */
    repo: specText.optional(),
    /** The commit the task starts from; opaque to the store. */
    base: specText.optional(),
    /** The host's settings for the agent: an opaque JSON object the store never interprets. */
    settings: jsonObject.optional(),
    /** A time (ms since the epoch or a Date) or a duration ("2h"); default 1 h, at most 30 days. */
    deadline: z.union([z.number(), z.date(), z.string()]).optional(),
    /** The parent task; absent means "the task this process runs in, if any", null a root. */
    parent: z.string().regex(TASK_ID, "not a task id").nullable().optional(),
    /** How many agent-to-agent hand-offs this work has been through; past 8 it is refused. */
    hop: z.number().int().min(0).optional(),
    labels: labels.optional(),
  })
  .strict();

export type TaskSpecInput = z.input<typeof taskSpecInputSchema>;

/** spec.json. `ancestors` is the immutable chain root-first, so policy checks read one file. */
export const storedSpecSchema = z
  .object({
    version: z.literal(1),
    id: z.string().regex(TASK_ID),
    createdAt: z.number().int(),
    repo: z.string().optional(),
    base: z.string().optional(),
    settings: z.record(z.string(), z.unknown()),
    deadline: z.number().int(),
    parent: z.string().regex(TASK_ID).nullable(),
    ancestors: z.array(z.string().regex(TASK_ID)).max(MAX_HOP + 1),
    hop: z.number().int().min(0).max(MAX_HOP),
    labels: z.record(z.string(), z.string()),
    /** The prompt's first non-blank line, cleaned and cut, for lists. */
    title: z.string(),
    promptBytes: z.number().int(),
  })
  .strict();

export type StoredSpec = z.infer<typeof storedSpecSchema>;

/** A task's immutable spec with its prompt, as an executor or `get` sees it. */
export type TaskSpec = StoredSpec & { prompt: string };

/** The checked input, its prompt decoded, before the store adds the id, times and tree. */
export type CheckedInput = Omit<z.infer<typeof taskSpecInputSchema>, "prompt"> & { prompt: string };

/** Checks a creator's input: the shape (zod), then the prompt's rules, each with its own error. */
export function checkSpecInput(value: unknown): CheckedInput {
  const parsed = taskSpecInputSchema.safeParse(value);
  if (!parsed.success) {
    throw new BadSpecError(`bad task spec: ${firstIssue(parsed.error, "spec")}`);
  }
  return { ...parsed.data, prompt: checkPrompt(parsed.data.prompt) };
}

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
