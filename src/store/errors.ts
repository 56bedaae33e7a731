// The store's refusals and failures: one class per kind, a stable code, the hint of what to do,
// and the exit class the CLI maps to its exit code. Where several callers word the same kind of
// refusal, the function beside its class words it.
import { cleanLine, WardenError, type WardenErrorOptions } from "../protocol/index.js";
import type { TerminalRecord } from "./terminalRecord.js";

/** The root of every error the store raises on purpose. */
export abstract class StoreError extends WardenError {}

/** A reference that is not a task id or a prefix of one (too short, wrong alphabet). */
export class BadTaskIdError extends StoreError {
  static override readonly hint =
    "give a task id or a unique prefix of at least 4 characters, as `warden ls` shows them, or @last";
  readonly code: string = "BAD_TASK_ID";
  readonly exitClass = "usage";
}

export function notATaskId(ref: string, why: string): string {
  return `"${cleanLine(ref)}" is not a task id: ${why}`;
}

export class TaskNotFoundError extends StoreError {
  static override readonly hint =
    "check the id with `warden ls`, and that --data-dir or WARDEN_DATA_DIR names the right store";
  readonly code: string = "TASK_NOT_FOUND";
  readonly exitClass = "usage";
}

export function noSuchTask(ref: string, what = "task"): string {
  return `no ${what} ${cleanLine(ref)} in this data directory`;
}

export class AmbiguousIdError extends StoreError {
  static override readonly hint = "give more characters of the id";
  readonly code: string = "AMBIGUOUS_ID";
  readonly exitClass = "usage";
  readonly candidates: readonly string[];
  constructor(message: string, options: WardenErrorOptions & { candidates: readonly string[] }) {
    super(message, options);
    this.candidates = options.candidates;
  }
}

/** `@last-N` asks for a task further back than the store has tasks. */
export class NoRecentTaskError extends StoreError {
  static override readonly hint =
    "`@last` is the newest task and `@last-N` the one N before it; `warden ls` lists them all";
  readonly code: string = "NO_RECENT_TASK";
  readonly exitClass = "usage";
}

/** Someone else holds the task's attach.lock. */
export class AlreadyAttachedError extends StoreError {
  static override readonly hint =
    "watch it with `warden watch`, or cancel it first; only one process runs a task at a time";
  readonly code: string = "ALREADY_ATTACHED";
  readonly exitClass = "operational";
}

/** Another background runner already waits for a turn to run the task (runQueue.ts). */
export class AlreadyQueuedError extends StoreError {
  static override readonly hint =
    "see it with `warden show`; it runs when its turn comes, or cancel it with `warden cancel`";
  readonly code: string = "ALREADY_QUEUED";
  readonly exitClass = "operational";
}

export class SpecImmutableError extends StoreError {
  static override readonly hint = "create a new task instead of changing this one";
  readonly code: string = "SPEC_IMMUTABLE";
  readonly exitClass = "usage";
}

export function alreadyExists(id: string): string {
  return `task ${id} already exists and its spec is never rewritten`;
}

export class BadSpecError extends StoreError {
  static override readonly hint = "fix the task spec and create the task again";
  readonly code: string = "BAD_SPEC";
  readonly exitClass = "usage";
}

export class PromptEmptyError extends StoreError {
  static override readonly hint = "say what the task is to do";
  readonly code: string = "PROMPT_EMPTY";
  readonly exitClass = "usage";
}

export class PromptTooBigError extends StoreError {
  static override readonly hint = "put large material in the repository and point the prompt at it";
  readonly code: string = "PROMPT_TOO_BIG";
  readonly exitClass = "usage";
}

/** A prompt or a message of `bytes`, over `max`. */
export function overLimit(what: "prompt" | "message", bytes: number, max: number): string {
  return `the ${what} is ${bytes} bytes, over the limit of ${max}`;
}

export class PromptNotTextError extends StoreError {
  static override readonly hint = "give the prompt as UTF-8 text without NUL characters";
  readonly code: string = "PROMPT_NOT_TEXT";
  readonly exitClass = "usage";
}

/** A prompt or a message that is not text; `why` says what in it is not, in words. */
export function notText(what: "prompt" | "message", why: string): string {
  return `the ${what} is not text: ${why}`;
}

export class BadDeadlineError extends StoreError {
  static override readonly hint =
    "give a duration such as 90s, 45m, 2h or 3d, or a time in the future";
  readonly code: string = "BAD_DEADLINE";
  readonly exitClass = "usage";
}

export class DeadlineTooFarError extends StoreError {
  readonly code: string = "DEADLINE_TOO_FAR";
  readonly exitClass = "usage";
}

export class HopTooDeepError extends StoreError {
  static override readonly hint = "do the work in this task instead of handing it to another agent";
  readonly code: string = "HOP_TOO_DEEP";
  readonly exitClass = "usage";
}

export class ParentFinishedError extends StoreError {
  static override readonly hint = "create the task as a root of its own (outside any task)";
  readonly code: string = "PARENT_FINISHED";
  readonly exitClass = "operational";
}

export class TaskCancellingError extends StoreError {
  static override readonly hint = "wait for it to finish with `warden wait`";
  readonly code: string = "TASK_CANCELLING";
  readonly exitClass = "operational";
}

/** A refusal because the task has ended: it carries the record of how. */
abstract class TaskEndedError extends StoreError {
  readonly terminal: TerminalRecord;
  constructor(message: string, options: WardenErrorOptions & { terminal: TerminalRecord }) {
    super(message, options);
    this.terminal = options.terminal;
  }
}

export class TaskFinishedError extends TaskEndedError {
  static override readonly hint = "create a new task to do more work";
  readonly code: string = "TASK_FINISHED";
  readonly exitClass = "operational";
}

/** Task `id`, which ended as `terminal` says, cannot do `what`. */
export function hasFinished(id: string, terminal: TerminalRecord, what: string): string {
  return `task ${id} has finished (${terminal.state}), so ${what}`;
}

/** attach found the task past its deadline and recorded it failed/deadline. */
export class DeadlinePassedError extends TaskEndedError {
  static override readonly hint = "create a new task with a later deadline to run it again";
  readonly code: string = "DEADLINE_PASSED";
  readonly exitClass = "bound";
}

export class TaskRunningError extends StoreError {
  static override readonly hint = "cancel it and wait for it to finish first";
  readonly code: string = "TASK_RUNNING";
  readonly exitClass = "operational";
}

export class HasChildrenError extends StoreError {
  static override readonly hint =
    "remove the children first, or remove the whole tree with --recursive";
  readonly code: string = "HAS_CHILDREN";
  readonly exitClass = "usage";
}

export class ChildrenRunningError extends StoreError {
  static override readonly hint = "cancel the children or wait for them, then finish again";
  readonly code: string = "CHILDREN_RUNNING";
  readonly exitClass = "operational";
  readonly children: readonly string[];
  constructor(message: string, options: WardenErrorOptions & { children: readonly string[] }) {
    super(message, options);
    this.children = options.children;
  }
}

export class InboxFullError extends StoreError {
  static override readonly hint =
    "a task takes at most 16 messages over its life; create a new task to go on";
  readonly code: string = "INBOX_FULL";
  readonly exitClass = "operational";
}

export class LockBusyError extends StoreError {
  static override readonly hint =
    "a process holding it may be stopped; try again, or find it with `fuser`";
  readonly code: string = "LOCK_BUSY";
  readonly exitClass = "operational";
}

export function lockTakenTooLong(path: string): string {
  return `the lock ${cleanLine(path)} stayed taken too long`;
}

export class MessageEmptyError extends StoreError {
  static override readonly hint = "say something in the message";
  readonly code: string = "MESSAGE_EMPTY";
  readonly exitClass = "usage";
}

export class MessageTooBigError extends StoreError {
  static override readonly hint =
    "send a shorter message, and put large material in the repository";
  readonly code: string = "MESSAGE_TOO_BIG";
  readonly exitClass = "usage";
}

export class MessageNotTextError extends StoreError {
  static override readonly hint = "send the message as UTF-8 text without NUL characters";
  readonly code: string = "MESSAGE_NOT_TEXT";
  readonly exitClass = "usage";
}

export class BadMessageFileError extends StoreError {
  static override readonly hint =
    "give each file once, under a plain name (letters, digits, '.', '_', '-', '+'); rename or copy it first";
  readonly code: string = "BAD_MESSAGE_FILE";
  readonly exitClass = "usage";
}

export class MessageFilesTooBigError extends StoreError {
  static override readonly hint =
    "send fewer or smaller files, and put large material in the repository";
  readonly code: string = "MESSAGE_FILES_TOO_BIG";
  readonly exitClass = "usage";
}

export class MessageStateError extends StoreError {
  static override readonly hint = "deliver only messages this attachment took with takeMessages()";
  readonly code: string = "MESSAGE_STATE";
  readonly exitClass = "usage";
}

/** How a task that cancel, wait or approve refuses stands to the task asking, in words. */
export function relationText(edge: CancelRefusal | WaitRefusal | ApproveRefusal): string {
  return {
    self: "itself",
    ancestor: "its ancestor",
    peer: "a peer in its own tree",
    other_tree: "a task of another tree",
    not_a_root: "inside another tree",
  }[edge];
}

/** A refusal of cancel, wait or approve for how the two tasks stand to each other: its `edge`. */
abstract class EdgeRefusalError<Edge extends string> extends StoreError {
  readonly exitClass = "usage";
  readonly edge: Edge;
  constructor(message: string, options: WardenErrorOptions & { edge: Edge }) {
    super(message, options);
    this.edge = options.edge;
  }
}

export type CancelRefusal = "ancestor" | "peer" | "other_tree";

export class CancelNotAllowedError extends EdgeRefusalError<CancelRefusal> {
  static override readonly hint =
    "a task may cancel only itself and its descendants; ask the owner of that task instead";
  readonly code: string = "CANCEL_NOT_ALLOWED";
}

export type WaitRefusal = "self" | "ancestor" | "peer" | "not_a_root";

export class WaitNotAllowedError extends EdgeRefusalError<WaitRefusal> {
  static override readonly hint =
    "a task may wait only on its descendants or on an independent root";
  readonly code: string = "WAIT_NOT_ALLOWED";
}

export class WaitCycleError extends StoreError {
  static override readonly hint = "let one of the two trees finish without waiting on the other";
  readonly code: string = "WAIT_CYCLE";
  readonly exitClass = "usage";
}

export class EventTooBigError extends StoreError {
  static override readonly hint =
    "cut long text before it goes into an event; keep payloads in results/";
  readonly code: string = "EVENT_TOO_BIG";
  readonly exitClass = "usage";
}

export class BadEventError extends StoreError {
  static override readonly hint =
    "give a short type and a JSON object without seq, at or type fields";
  readonly code: string = "BAD_EVENT";
  readonly exitClass = "usage";
}

export class BadTerminalError extends StoreError {
  static override readonly hint = "give a terminal state the store documents";
  readonly code: string = "BAD_TERMINAL";
  readonly exitClass = "usage";
}

export class AttachmentClosedError extends StoreError {
  static override readonly hint = "attach again to go on running the task";
  readonly code: string = "ATTACHMENT_CLOSED";
  readonly exitClass = "usage";
}

export function attachmentClosed(id: string): string {
  return `the attachment to task ${id} has finished, is finishing, or was released`;
}

/** A file of the store that is not what the store writes: damaged by hand or by the disk. */
export class StoreCorruptError extends StoreError {
  static override readonly hint: string =
    "remove the task with `warden rm`, or restore the file from a backup";
  readonly code: string = "STORE_CORRUPT";
  readonly exitClass = "operational";
}

export function damaged(path: string, why: string): string {
  return `${cleanLine(path)} is damaged: ${cleanLine(why)}`;
}

/**
 * A symbolic link where a task keeps a file or directory of warden's own (results → /etc,
 * events.jsonl → /etc/passwd): warden never reads, writes or removes through it. It is a kind of
 * damage, so a list passes over the task and `warden rm` removes it (the link, never its target).
 */
export class PlantedLinkError extends StoreCorruptError {
  static override readonly hint =
    "something other than warden put a link there: see where it points (ls -l), then remove the link, or the task with `warden rm`";
  override readonly code: string = "PLANTED_LINK";
}

export function plantedLink(path: string): string {
  return damaged(path, "it is a symbolic link, and warden never follows one inside a task");
}

export class DataDirError extends StoreError {
  static override readonly hint = "pass --data-dir or set WARDEN_DATA_DIR to a directory you own";
  readonly code: string = "DATA_DIR";
  readonly exitClass = "operational";
}

/** A permission prompt number the task never asked. */
export class ApprovalNotFoundError extends StoreError {
  static override readonly hint = "list the task's requests with `warden approvals`";
  readonly code: string = "APPROVAL_NOT_FOUND";
  readonly exitClass = "usage";
}

export function noApprovalRequest(id: string, n: number): string {
  return `task ${id} has no approval request ${n}`;
}

/** A permission prompt that has its answer already: the first answer stands. */
export class ApprovalAnsweredError extends StoreError {
  static override readonly hint =
    "each request is answered once; see the task's requests with `warden approvals`";
  readonly code: string = "APPROVAL_ANSWERED";
  readonly exitClass = "operational";
}

/** A task whose agent has as many prompts waiting as the store keeps at once. */
export class ApprovalsBusyError extends StoreError {
  static override readonly hint = "answer the waiting requests with `warden approve`";
  readonly code: string = "APPROVALS_BUSY";
  readonly exitClass = "operational";
}

/** A task that has put all the prompts to a person that a task may. */
export class ApprovalsFullError extends StoreError {
  static override readonly hint =
    "run the task with approve `always` or `never` and allow or deny rules instead";
  readonly code: string = "APPROVALS_FULL";
  readonly exitClass = "operational";
}

export type ApproveRefusal = "self" | "ancestor" | "peer" | "other_tree";

/** A task answering a prompt it may not: its own, or one of a task above or beside it. */
export class ApproveNotAllowedError extends EdgeRefusalError<ApproveRefusal> {
  static override readonly hint =
    "a task may answer only its descendants' requests; a person answers from outside any task";
  readonly code: string = "APPROVE_NOT_ALLOWED";
}

/** Suspend asks an executor to stop the task; a task nobody runs has none to ask. */
export class NotSuspendableError extends StoreError {
  static override readonly hint =
    "only a running task can be suspended; `warden ls` shows which run, and `warden cancel` ends one";
  readonly code: string = "NOT_SUSPENDABLE";
  readonly exitClass = "operational";
}

/** Resume runs a suspended task on; any other state has nothing to resume. */
export class NotSuspendedError extends StoreError {
  static override readonly hint =
    "`warden start` runs a created or interrupted task; `warden show` says what state it is in";
  readonly code: string = "NOT_SUSPENDED";
  readonly exitClass = "operational";
}

/** The refusal of a cancel between two tasks that stand as `edge` to each other. */
export function cancelRefused(
  by: string | null,
  target: string,
  edge: CancelRefusal,
): CancelNotAllowedError {
  return new CancelNotAllowedError(
    `task ${by ?? ""} may not cancel ${target}: it is ${relationText(edge)}`,
    { edge },
  );
}

/** The refusal of a wait between two tasks that stand as `edge` to each other. */
export function waitRefused(
  by: string | null,
  target: string,
  edge: WaitRefusal,
): WaitNotAllowedError {
  return new WaitNotAllowedError(
    `task ${by ?? ""} may not wait on ${target}: it is ${relationText(edge)}`,
    { edge, ...(edge === "not_a_root" ? { hint: "wait on the root of that tree instead" } : {}) },
  );
}

/** The refusal of an answer to a task's approval requests from one that stands as `edge`. */
export function approveRefused(
  by: string | null,
  target: string,
  edge: ApproveRefusal,
): ApproveNotAllowedError {
  return new ApproveNotAllowedError(
    `task ${by ?? ""} may not answer the approval requests of ${target}: it is ${relationText(edge)}`,
    { edge },
  );
}
