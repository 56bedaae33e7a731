// terminal.json and the cancel file: how a task ended and who asked it to stop. terminal.json's
// existence means finished; the executor writes it atomically as its last act, never again.
import { z } from "zod";
import { TASK_ID } from "../protocol/index.js";

export const TERMINAL_STATES = ["succeeded", "failed", "cancelled"] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

/**
 * The bound that ended a failed task, when one did: the task's time, the agent's own budget and
 * turns, or one of the sandbox's bounds as the host saw it (memory, processes, disk).
 */
export const STOPPED_BY = [
  "deadline",
  "budget",
  "turns",
  "host_timeout",
  "memory",
  "processes",
  "disk",
] as const;
export type StoppedBy = (typeof STOPPED_BY)[number];

const cancelRequestSchema = z
  .object({
    /** The task that asked, or null when it came from outside any task. */
    by: z.string().regex(TASK_ID).nullable(),
    at: z.number().int(),
    /** The task the request was made on; a descendant's request names its cancelled ancestor. */
    target: z.string().regex(TASK_ID),
  })
  .strict();

/** The content of a task's `cancel` file. */
export type CancelRequest = z.infer<typeof cancelRequestSchema>;
export { cancelRequestSchema };

export const terminalRecordSchema = z
  .object({
    state: z.enum(TERMINAL_STATES),
    stoppedBy: z.enum(STOPPED_BY).optional(),
    /** When the record was written, ms since the epoch. */
    at: z.number().int(),
    /** What the task did, cut to 4 KiB at a character boundary; summaryCut says whether it was. */
    summary: z.string().optional(),
    summaryCut: z.boolean().optional(),
    error: z.string().optional(),
    /** The cancel request a cancelled task honoured. */
    cancel: cancelRequestSchema.optional(),
    /** The host's own facts (branch, head, costs): opaque to the store. */
    details: z.record(z.string(), z.unknown()).optional(),
    /** The last event seq written before the record, so a watcher knows it has seen all. */
    lastSeq: z.number().int().min(0),
    /** How many times the task was attached, this one included (0 when it never ran). */
    attempts: z.number().int().min(0),
  })
  .strict();

export type TerminalRecord = z.infer<typeof terminalRecordSchema>;
