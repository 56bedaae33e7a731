// task.json: how the guest runs the task. Checked by the host before it writes the share and
// by the guest before it runs anything; both refuse unknown fields.
import { z } from "zod";
import { cleanLine } from "./clean.js";
import { BadSettingsError } from "./errors.js";
import { LIMITS } from "./limits.js";
import { parseJsonStrict } from "./json.js";
import { MAX_HOP, TASK_ID } from "./names.js";

/** The agents the runner knows. */
export const AGENTS = ["command"] as const;
export type AgentName = (typeof AGENTS)[number];

/** The most argv entries a `command` agent may have, and the bytes of one. */
export const MAX_COMMAND_ARGS = 4096;
export const MAX_COMMAND_ARG_BYTES = 128 * 1024;

// Control characters anywhere in a setting would reach a command line or a commit header.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const count = (max: number) => z.number().int().min(0).max(max);

const settingText = z.string().max(LIMITS.settingTextBytes);

export const settingsSchema = z
  .object({
    /** The task these settings belong to, for the environment protocol. */
    taskId: z.string().regex(TASK_ID, "not a task id").optional(),
    parentTaskId: z.string().regex(TASK_ID, "not a task id").optional(),
    hop: z.number().int().min(0).max(MAX_HOP).optional(),
    agent: z.enum(AGENTS),
    /** The argv of the `command` agent; the prompt arrives on its stdin. */
    command: z
      .array(
        z
          .string()
          .max(MAX_COMMAND_ARG_BYTES)
          .refine((a) => !a.includes("\0"), "an argument has a NUL byte"),
      )
      .min(1)
      .max(MAX_COMMAND_ARGS)
      .optional(),
    model: settingText
      .refine((m) => !m.startsWith("-"), "model starts with '-'")
      .refine((m) => !/\s/.test(m) && !CONTROL.test(m), "model has a space or control character")
      .optional(),
    maxTurns: count(LIMITS.maxTurns).optional(),
    maxBudgetUSD: z.number().min(0).max(LIMITS.maxBudgetUSD).optional(),
    timeoutSeconds: count(LIMITS.timeoutSeconds).optional(),
    gitName: settingText
      .refine((n) => !CONTROL.test(n) && !/[<>]/.test(n), "gitName has a control character, < or >")
      .optional(),
    gitEmail: settingText
      .refine(
        (e) => !CONTROL.test(e) && !/[<>\s]/.test(e),
        "gitEmail has a space, control character, < or >",
      )
      .optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    // Only the command agent exists yet; later agents take their command from the adapter.
    if (s.command === undefined) {
      ctx.addIssue({
        code: "custom",
        message: "the command agent needs a command",
        path: ["command"],
      });
    }
  });

export type Settings = z.infer<typeof settingsSchema>;

/** Checks a settings value (already parsed JSON, or built in code). Throws BadSettingsError. */
export function checkSettings(value: unknown): Settings {
  const parsed = settingsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "task.json";
    throw new BadSettingsError(
      `bad settings: ${cleanLine(where)}: ${cleanLine(issue?.message ?? "invalid")}`,
      {
        hint: "fix task.json: unknown fields, negative or non-finite numbers and unsafe names are refused",
      },
    );
  }
  return parsed.data;
}

/** Parses the bytes of task.json: size-limited, UTF-8, one JSON value and nothing after it. */
export function parseSettings(bytes: Uint8Array): Settings {
  const value = parseJsonStrict(
    bytes,
    LIMITS.settingsBytes,
    "task.json",
    (m) => new BadSettingsError(m),
  );
  return checkSettings(value);
}
