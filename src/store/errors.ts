// The store's refusals and failures: one class per kind, a stable code, a hint, and the exit
// class the CLI maps to its exit code (usage → 2, operational → 1, bound → 3).
import { cleanLine, WardenError } from "../protocol/index.js";
import type { LockHolder } from "./lockHolder.js";
import type { TerminalRecord } from "./terminalRecord.js";

/** How the CLI should exit on this error: 2 for usage, 1 for operational, 3 for a bound. */
export type ExitClass = "usage" | "operational" | "bound";

/** The root of every error the store raises on purpose. */
export abstract class StoreError extends WardenError {
  abstract readonly exitClass: ExitClass;
  declare readonly hint: string;

  constructor(code: string, message: string, hint: string, cause?: unknown) {
    super(code, message, { hint, cause });
  }
}

/** A reference that is not a task id or a prefix of one (too short, wrong alphabet). */
export class BadTaskIdError extends StoreError {
  readonly exitClass = "usage";
  constructor(ref: string, why: string) {
    super(
      "BAD_TASK_ID",
      `"${cleanLine(ref)}" is not a task id: ${why}`,
      "give a task id or a unique prefix of at least 4 characters, as `warden ls` shows them",
    );
  }
}

export class TaskNotFoundError extends StoreError {
  readonly exitClass = "usage";
  constructor(ref: string, what = "task") {
    super(
      "TASK_NOT_FOUND",
      `no ${what} ${cleanLine(ref)} in this data directory`,
      "check the id with `warden ls`, and that --data-dir or WARDEN_DATA_DIR names the right store",
    );
  }
}

export class AmbiguousIdError extends StoreError {
  readonly exitClass = "usage";
  readonly candidates: readonly string[];
  constructor(prefix: string, candidates: readonly string[], shown: number) {
    const listed = candidates.slice(0, shown).join(", ");
    const more = candidates.length > shown ? ` and ${candidates.length - shown} more` : "";
    super(
      "AMBIGUOUS_ID",
      `the prefix ${cleanLine(prefix)} matches ${candidates.length} tasks: ${listed}${more}`,
      "give more characters of the id",
    );
    this.candidates = candidates;
  }
}

/** Someone else holds the task's attach.lock. */
export class AlreadyAttachedError extends StoreError {
  readonly exitClass = "operational";
  readonly pid: number | undefined;
  readonly host: string | undefined;
  constructor(id: string, holder: LockHolder | undefined) {
    const doing = { run: "running", record: "having its end recorded", remove: "being removed" };
    const where =
      holder === undefined
        ? "running in another process"
        : `${doing[holder.purpose]} in pid ${holder.pid} on ${cleanLine(holder.host)}`;
    super(
      "ALREADY_ATTACHED",
      `task ${id} is ${where}`,
      "watch it with `warden watch`, or cancel it first; only one process runs a task at a time",
    );
    this.pid = holder?.pid;
    this.host = holder?.host;
  }
}

export class SpecImmutableError extends StoreError {
  readonly exitClass = "usage";
  constructor(id: string) {
    super(
      "SPEC_IMMUTABLE",
      `task ${id} already exists and its spec is never rewritten`,
      "create a new task instead of changing this one",
    );
  }
}

export class BadSpecError extends StoreError {
  readonly exitClass = "usage";
  constructor(message: string, hint = "fix the task spec and create the task again") {
    super("BAD_SPEC", message, hint);
  }
}

export class PromptEmptyError extends StoreError {
  readonly exitClass = "usage";
  constructor() {
    super("PROMPT_EMPTY", "the prompt is empty", "say what the task is to do");
  }
}

export class PromptTooBigError extends StoreError {
  readonly exitClass = "usage";
  constructor(bytes: number, max: number) {
    super(
      "PROMPT_TOO_BIG",
      `the prompt is ${bytes} bytes, over the limit of ${max}`,
      "put large material in the repository and point the prompt at it",
    );
  }
}

export class PromptNotTextError extends StoreError {
  readonly exitClass = "usage";
  /** `why` says what in it is not text, in words: "it is not valid UTF-8". */
  constructor(why = "it is not well-formed Unicode") {
    super(
      "PROMPT_NOT_TEXT",
      `the prompt is not text: ${why}`,
      "give the prompt as UTF-8 text without NUL characters",
    );
  }
}

export class BadDeadlineError extends StoreError {
  readonly exitClass = "usage";
  constructor(message: string) {
    super(
      "BAD_DEADLINE",
      message,
      "give a duration such as 90s, 45m, 2h or 3d, or a time in the future",
    );
  }
}

export class DeadlineTooFarError extends StoreError {
  readonly exitClass = "usage";
  constructor(maxDays: number) {
    super(
      "DEADLINE_TOO_FAR",
      `the deadline is more than ${maxDays} days away`,
      `give a deadline within ${maxDays} days; split longer work into several tasks`,
    );
  }
}

export class HopTooDeepError extends StoreError {
  readonly exitClass = "usage";
  constructor(hop: number, max: number) {
    super(
      "HOP_TOO_DEEP",
      `handing this work on would make it hop ${hop}, past the limit of ${max}`,
      "do the work in this task instead of handing it to another agent",
    );
  }
}

export class ParentFinishedError extends StoreError {
  readonly exitClass = "operational";
  constructor(parent: string) {
    super(
      "PARENT_FINISHED",
      `the parent task ${parent} has finished, so it can have no new children`,
      "create the task as a root of its own (outside any task)",
    );
  }
}

export class TaskCancellingError extends StoreError {
  readonly exitClass = "operational";
  constructor(id: string, what: string) {
    super(
      "TASK_CANCELLING",
      `task ${id} is being cancelled, so ${what}`,
      "wait for it to finish with `warden wait`",
    );
  }
}

export class TaskFinishedError extends StoreError {
  readonly exitClass = "operational";
  readonly terminal: TerminalRecord;
  constructor(id: string, terminal: TerminalRecord, what: string) {
    super(
      "TASK_FINISHED",
      `task ${id} has finished (${terminal.state}), so ${what}`,
      "create a new task to do more work",
    );
    this.terminal = terminal;
  }
}

/** attach found the task past its deadline and recorded it failed/deadline. */
export class DeadlinePassedError extends StoreError {
  readonly exitClass = "bound";
  readonly terminal: TerminalRecord;
  constructor(id: string, terminal: TerminalRecord) {
    super(
      "DEADLINE_PASSED",
      `task ${id} is past its deadline, so it was recorded as failed instead of run again`,
      "create a new task with a later deadline to run it again",
    );
    this.terminal = terminal;
  }
}

export class TaskRunningError extends StoreError {
  readonly exitClass = "operational";
  constructor(id: string, what: string) {
    super(
      "TASK_RUNNING",
      `task ${id} is running, so ${what}`,
      "cancel it and wait for it to finish first",
    );
  }
}

export class HasChildrenError extends StoreError {
  readonly exitClass = "usage";
  constructor(id: string, count: number) {
    super(
      "HAS_CHILDREN",
      `task ${id} has ${count} child task(s)`,
      "remove the children first, or remove the whole tree with --recursive",
    );
  }
}

export class ChildrenRunningError extends StoreError {
  readonly exitClass = "operational";
  readonly children: readonly string[];
  constructor(id: string, children: readonly string[]) {
    super(
      "CHILDREN_RUNNING",
      `task ${id} cannot record its end while its children ${children.join(", ")} still run`,
      "cancel the children or wait for them, then finish again",
    );
    this.children = children;
  }
}

export class InboxFullError extends StoreError {
  readonly exitClass = "operational";
  constructor(id: string, max: number) {
    super(
      "INBOX_FULL",
      `task ${id} has had its ${max} messages`,
      "a task takes at most 16 messages over its life; create a new task to go on",
    );
  }
}

export class LockBusyError extends StoreError {
  readonly exitClass = "operational";
  constructor(path: string) {
    super(
      "LOCK_BUSY",
      `the lock ${cleanLine(path)} stayed taken too long`,
      "a process holding it may be stopped; try again, or find it with `fuser`",
    );
  }
}

export class MessageEmptyError extends StoreError {
  readonly exitClass = "usage";
  constructor() {
    super("MESSAGE_EMPTY", "the message is empty", "say something in the message");
  }
}

export class MessageTooBigError extends StoreError {
  readonly exitClass = "usage";
  constructor(bytes: number, max: number) {
    super(
      "MESSAGE_TOO_BIG",
      `the message is ${bytes} bytes, over the limit of ${max}`,
      "send a shorter message, and put large material in the repository",
    );
  }
}

export class MessageNotTextError extends StoreError {
  readonly exitClass = "usage";
  /** `why` says what in it is not text, in words: "it has a NUL character". */
  constructor(why = "it is not well-formed Unicode") {
    super(
      "MESSAGE_NOT_TEXT",
      `the message is not text: ${why}`,
      "send the message as UTF-8 text without NUL characters",
    );
  }
}

export class MessageStateError extends StoreError {
  readonly exitClass = "usage";
  constructor(id: string, n: number, why: string) {
    super(
      "MESSAGE_STATE",
      `message ${n} of task ${id} ${why}`,
      "deliver only messages this attachment took with takeMessages()",
    );
  }
}

export type CancelRefusal = "ancestor" | "peer" | "other_tree";

export class CancelNotAllowedError extends StoreError {
  readonly exitClass = "usage";
  readonly edge: CancelRefusal;
  constructor(by: string, target: string, edge: CancelRefusal) {
    const what = {
      ancestor: "its ancestor",
      peer: "a peer in its own tree",
      other_tree: "a task of another tree",
    }[edge];
    super(
      "CANCEL_NOT_ALLOWED",
      `task ${by} may not cancel ${target}: it is ${what}`,
      "a task may cancel only itself and its descendants; ask the owner of that task instead",
    );
    this.edge = edge;
  }
}

export type WaitRefusal = "self" | "ancestor" | "peer" | "not_a_root";

export class WaitNotAllowedError extends StoreError {
  readonly exitClass = "usage";
  readonly edge: WaitRefusal;
  constructor(by: string, target: string, edge: WaitRefusal) {
    const what = {
      self: "itself",
      ancestor: "its ancestor",
      peer: "a peer in its own tree",
      not_a_root: "inside another tree",
    }[edge];
    super(
      "WAIT_NOT_ALLOWED",
      `task ${by} may not wait on ${target}: it is ${what}`,
      edge === "not_a_root"
        ? "wait on the root of that tree instead"
        : "a task may wait only on its descendants or on an independent root",
    );
    this.edge = edge;
  }
}

export class WaitCycleError extends StoreError {
  readonly exitClass = "usage";
  constructor(by: string, target: string) {
    super(
      "WAIT_CYCLE",
      `task ${by} may not wait on ${target}: that tree is already waiting on this one`,
      "let one of the two trees finish without waiting on the other",
    );
  }
}

export class EventTooBigError extends StoreError {
  readonly exitClass = "usage";
  constructor(bytes: number, max: number) {
    super(
      "EVENT_TOO_BIG",
      `an event of ${bytes} bytes is over the limit of ${max}`,
      "cut long text before it goes into an event; keep payloads in results/",
    );
  }
}

export class BadEventError extends StoreError {
  readonly exitClass = "usage";
  constructor(message: string) {
    super(
      "BAD_EVENT",
      message,
      "give a short type and a JSON object without seq, at or type fields",
    );
  }
}

export class BadTerminalError extends StoreError {
  readonly exitClass = "usage";
  constructor(message: string) {
    super("BAD_TERMINAL", message, "give a terminal state the store documents");
  }
}

export class AttachmentClosedError extends StoreError {
  readonly exitClass = "usage";
  constructor(id: string) {
    super(
      "ATTACHMENT_CLOSED",
      `the attachment to task ${id} has finished, is finishing, or was released`,
      "attach again to go on running the task",
    );
  }
}

/** A file of the store that is not what the store writes: damaged by hand or by the disk. */
export class StoreCorruptError extends StoreError {
  readonly exitClass = "operational";
  constructor(path: string, why: string, cause?: unknown) {
    super(
      "STORE_CORRUPT",
      `${cleanLine(path)} is damaged: ${cleanLine(why)}`,
      "remove the task with `warden rm`, or restore the file from a backup",
      cause,
    );
  }
}

/**
 * A symbolic link where a task keeps a file or directory of warden's own (results → /etc,
 * events.jsonl → /etc/passwd): warden never reads, writes or removes through it. It is a kind of
 * damage, so a list passes over the task and `warden rm` removes it (the link, never its target).
 */
export class PlantedLinkError extends StoreCorruptError {
  override readonly code = "PLANTED_LINK";
  override readonly hint =
    "something other than warden put a link there: see where it points (ls -l), then remove the link, or the task with `warden rm`";
  constructor(path: string, cause?: unknown) {
    super(path, "it is a symbolic link, and warden never follows one inside a task", cause);
  }
}

export class DataDirError extends StoreError {
  readonly exitClass = "operational";
  constructor(path: string, why: string, cause?: unknown) {
    super(
      "DATA_DIR",
      `cannot use the data directory ${cleanLine(path)}: ${cleanLine(why)}`,
      "pass --data-dir or set WARDEN_DATA_DIR to a directory you own",
      cause,
    );
  }
}

/** A permission prompt number the task never asked. */
export class ApprovalNotFoundError extends StoreError {
  readonly exitClass = "usage";
  constructor(id: string, n: number) {
    super(
      "APPROVAL_NOT_FOUND",
      `task ${id} has no approval request ${n}`,
      "list the task's requests with `warden approvals`",
    );
  }
}

/** A permission prompt that has its answer already: the first answer stands. */
export class ApprovalAnsweredError extends StoreError {
  readonly exitClass = "operational";
  constructor(id: string, request: { n: number; decision?: string; answeredBy?: string }) {
    const how =
      request.answeredBy === "person"
        ? `${request.decision ?? "answered"} by a person`
        : request.answeredBy === "timeout"
          ? "denied when nobody answered in time"
          : "denied when the run that asked ended";
    super(
      "APPROVAL_ANSWERED",
      `approval request ${request.n} of task ${id} was already answered: ${how}`,
      "each request is answered once; see the task's requests with `warden approvals`",
    );
  }
}

/** A task whose agent has as many prompts waiting as the store keeps at once. */
export class ApprovalsBusyError extends StoreError {
  readonly exitClass = "operational";
  constructor(id: string, max: number) {
    super(
      "APPROVALS_BUSY",
      `task ${id} already has ${max} approval requests waiting`,
      "answer the waiting requests with `warden approve`",
    );
  }
}

/** A task that has put all the prompts to a person that a task may. */
export class ApprovalsFullError extends StoreError {
  readonly exitClass = "operational";
  constructor(id: string, max: number) {
    super(
      "APPROVALS_FULL",
      `task ${id} has asked its ${max} approval requests`,
      "run the task with approve `always` or `never` and allow or deny rules instead",
    );
  }
}

export type ApproveRefusal = "self" | "ancestor" | "peer" | "other_tree";

/** A task answering a prompt it may not: its own, or one of a task above or beside it. */
export class ApproveNotAllowedError extends StoreError {
  readonly exitClass = "usage";
  readonly edge: ApproveRefusal;
  constructor(by: string, target: string, edge: ApproveRefusal) {
    const what = {
      self: "itself",
      ancestor: "its ancestor",
      peer: "a peer in its own tree",
      other_tree: "a task of another tree",
    }[edge];
    super(
      "APPROVE_NOT_ALLOWED",
      `task ${by} may not answer the approval requests of ${target}: it is ${what}`,
      "a task may answer only its descendants' requests; a person answers from outside any task",
    );
    this.edge = edge;
  }
}
