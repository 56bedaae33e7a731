// TaskAttachment: the executor's side of the store's interface (see taskStore.ts), apart from
// it so that the filesystem's Attachment can declare it without importing the store's verbs.
import type { ApprovalRequest } from "./approvals.js";
import type { TerminalInput } from "./buildTerminal.js";
import type { InboxMessage } from "./inbox.js";
import type { TaskSpec } from "./spec.js";
import type { TerminalRecord } from "./terminalRecord.js";

/** A value now (the filesystem store) or later (a store across the network). */
export type Eventually<T> = T | Promise<T>;

/** What `finish` of every store accepts; a store may take more options of its own. */
export interface StoreFinishOptions {
  /** How long to wait for running children to record their end before CHILDREN_RUNNING. */
  childWaitMs?: number;
}

/**
 * The one executor of a task: while it is held nobody else runs the task, and only its holder
 * appends events, takes and answers messages, asks approvals and writes the terminal record.
 * On the filesystem it is attach.lock; in a fleet, a lease with an attempt number.
 */
export interface TaskAttachment {
  readonly id: string;
  /** The immutable spec, prompt included. */
  readonly spec: TaskSpec;
  /** 1 on the first run, 2 after one interruption, and so on. */
  readonly attempt: number;
  /** The deadline, ms since the epoch. */
  readonly deadline: number;
  deadlinePassed(): boolean;
  /** Appends an event and returns its seq, or undefined when the log is full and it was dropped. */
  appendEvent(type: string, data?: Record<string, unknown>): Eventually<number | undefined>;
  /** Takes every pending message (now in_flight), oldest first. */
  takeMessages(): Promise<InboxMessage[]>;
  /** Marks a taken message delivered, with a reply cut to 4 KiB. */
  deliver(n: number, reply?: string): Promise<InboxMessage>;
  /** Opens a permission prompt for a person. */
  askApproval(call: { tool: string; input: string }): Promise<ApprovalRequest>;
  /** Whether someone asked to cancel the task. */
  cancelRequested(): Eventually<boolean>;
  /** Records how the task ended, as the holder's last act, and lets go. */
  finish(input: TerminalInput, options?: StoreFinishOptions): Promise<TerminalRecord>;
  /** Lets go without recording an end: the task reads `interrupted` until attached again. */
  release(): Eventually<void>;
}
