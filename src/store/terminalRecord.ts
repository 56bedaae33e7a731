// terminal.json and the cancel file: how a task ended and who asked it to stop. terminal.json's
// existence means finished; the executor writes it atomically as its last act, never again.
import { TASK_ID } from "../protocol/index.js";
import {
  anything,
  bool,
  int,
  matching,
  nullable,
  oneOf,
  optional,
  recordOf,
  strictObject,
  text,
  type ShapeOf,
} from "./recordShape.js";

export const TERMINAL_STATES = ["succeeded", "failed", "cancelled"] as const;
export type TerminalState = (typeof TERMINAL_STATES)[number];

/**
 * The bound that ended a failed task, when one did: the task's time, the agent's own budget and
 * turns, or one of the sandbox's bounds as the host saw it (memory, processes, disk), or the
 * model API's usage limit, whose reset came after the deadline.
 */
export const STOPPED_BY = [
  "deadline",
  "budget",
  "turns",
  "host_timeout",
  "memory",
  "processes",
  "disk",
  "setup",
  "usage_limit",
] as const;
export type StoppedBy = (typeof STOPPED_BY)[number];

/** The content of a task's `cancel` file. */
export const isCancelRequest = strictObject({
  /** The task that asked, or null when it came from outside any task. */
  by: nullable(matching(TASK_ID)),
  at: int(),
  /** The task the request was made on; a descendant's request names its cancelled ancestor. */
  target: matching(TASK_ID),
});

export type CancelRequest = ShapeOf<typeof isCancelRequest>;

export const isTerminalRecord = strictObject({
  state: oneOf(TERMINAL_STATES),
  stoppedBy: optional(oneOf(STOPPED_BY)),
  /** When the record was written, ms since the epoch. */
  at: int(),
  /** What the task did, cut to 4 KiB at a character boundary; summaryCut says whether it was. */
  summary: optional(text),
  summaryCut: optional(bool),
  error: optional(text),
  /** The cancel request a cancelled task honoured. */
  cancel: optional(isCancelRequest),
  /** The host's own facts (branch, head, costs): opaque to the store. */
  details: optional(recordOf(anything)),
  /** The last event seq written before the record, so a watcher knows it has seen all. */
  lastSeq: int(0),
  /** How many times the task was attached, this one included (0 when it never ran). */
  attempts: int(0),
});

export type TerminalRecord = ShapeOf<typeof isTerminalRecord>;
