// What a creator gives `Tasks.create` (TaskSpecInput), checked with zod, whose messages say what
// is wrong with the value given. Only creating a task needs it: createTask.ts loads this file
// when it is called, so a command that only reads tasks never loads zod.
import { z } from "zod";
import { memo } from "../lang/index.js";
import { firstIssue, TASK_ID } from "../protocol/index.js";
import { BadSpecError } from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import { checkPrompt } from "./spec.js";

// Control characters in a path, a commit name or a label would reach a terminal or a command line.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}$/;

const specText = (): z.ZodString =>
  z
    .string()
    .min(1)
    .refine((s) => Buffer.byteLength(s) <= STORE_LIMITS.specTextBytes, "is too long")
    .refine((s) => !CONTROL.test(s), "has a control character");

const jsonObject = (): z.ZodRecord<z.ZodString, z.ZodUnknown> =>
  z.record(z.string(), z.unknown()).refine((value) => {
    try {
      return Buffer.byteLength(JSON.stringify(value)) <= STORE_LIMITS.settingsBytes;
    } catch {
      return false;
    }
  }, `is not a JSON object of at most ${STORE_LIMITS.settingsBytes} bytes`);

const labels = (): z.ZodRecord<z.ZodString, z.ZodString> =>
  z
    .record(
      z.string().regex(LABEL_KEY, "a label name is letters, digits, . _ / - (at most 63)"),
      z
        .string()
        .refine((s) => Buffer.byteLength(s) <= STORE_LIMITS.labelValueBytes, "is too long")
        .refine((s) => !CONTROL.test(s), "has a control character"),
    )
    .refine((l) => Object.keys(l).length <= STORE_LIMITS.labels, "has too many labels");

/** What a creator gives `Tasks.create`, made on its first use. */
export const taskSpecInputSchema = memo(() =>
  z
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
      repo: specText().optional(),
      /** The commit the task starts from; opaque to the store. */
      base: specText().optional(),
      /** The host's settings for the agent: an opaque JSON object the store never interprets. */
      settings: jsonObject().optional(),
      /** A time (ms since the epoch or a Date) or a duration ("2h"); default 1 h, at most 30 days. */
      deadline: z.union([z.number(), z.date(), z.string()]).optional(),
      /** The parent task; absent means "the task this process runs in, if any", null a root. */
      parent: z.string().regex(TASK_ID, "not a task id").nullable().optional(),
      /** How many agent-to-agent hand-offs this work has been through; past 8 it is refused. */
      hop: z.number().int().min(0).optional(),
      labels: labels().optional(),
    })
    .strict(),
);

export type TaskSpecInput = z.input<ReturnType<typeof taskSpecInputSchema>>;

/** The checked input, its prompt decoded, before the store adds the id, times and tree. */
export type CheckedInput = Omit<z.infer<ReturnType<typeof taskSpecInputSchema>>, "prompt"> & {
  prompt: string;
};

/** Checks a creator's input: the shape (zod), then the prompt's rules, each with its own error. */
export function checkSpecInput(value: unknown): CheckedInput {
  const parsed = taskSpecInputSchema().safeParse(value);
  if (!parsed.success) {
    throw new BadSpecError(`bad task spec: ${firstIssue(parsed.error, "spec")}`);
  }
  return { ...parsed.data, prompt: checkPrompt(parsed.data.prompt) };
}
