// TaskStore: the store's public face as one interface, so that a fleet's store (src/fleet/) and
// the filesystem store (Tasks, the default) are used alike and checked by one contract suite.
//
// The interface holds only what a store that is not a directory can provide. What needs the
// task's directory on this machine stays on the filesystem side: Tasks' dataDir, suspend,
// holdResumeWait, remove, gc and waitReply, and Attachment's resultsDir, message and reply
// files, env() and suspend(). A fleet worker runs each task it leases in a local filesystem
// store and mirrors what the task writes (events, inbox answers, its terminal record) to the
// fleet's store, so the host's run code keeps working on directories.
import type { ApprovalDecision, ApprovalRequest } from "./approvals.js";
import type { CancelOutcome } from "./cancelTask.js";
import type { CreateOptions } from "./createTask.js";
import type { CurrentTask } from "./envProtocol.js";
import type { TaskEvent } from "./eventLog.js";
import type { InboxMessage } from "./inbox.js";
import type { TaskSpecInput } from "./specInput.js";
import type { ListFilter, TaskDetails, TaskSummary } from "./summary.js";
import type { TaskAttachment } from "./taskAttachment.js";
import type { WaitOptions, WaitOutcome } from "./waitTask.js";
import type { WatchOptions } from "./watchEvents.js";

/** Who acts: a task id, or null for outside any task; absent means the current task. */
export interface ActingAs {
  by?: string | null;
}

export interface StoreSendOptions {
  /** The sending task (default: the one this process runs in); null for outside any task. */
  from?: string | null;
}

export interface StoreApproveOptions extends ActingAs {
  /** Told to the agent with the answer. */
  reason?: string;
}

export interface TaskStore {
  /** The task this process runs in, from the environment protocol, or undefined. */
  readonly current: CurrentTask | undefined;
  /** Resolves an id, a unique prefix of 4 or more characters, `@last` or `@last-N`. */
  resolve(ref: string): Promise<string>;
  /** Creates a task; its spec is never rewritten (SPEC_IMMUTABLE for an id that exists). */
  create(spec: TaskSpecInput, options?: CreateOptions): Promise<TaskSummary>;
  /** Becomes the task's one executor, or records the end it must have (deadline, cancel). */
  attach(ref: string): Promise<TaskAttachment>;
  get(ref: string): Promise<TaskDetails>;
  /** Every task, oldest first. */
  list(filter?: ListFilter): Promise<TaskSummary[]>;
  /** The task's events after the cursor `since`, exactly once and in order. */
  watch(ref: string, options?: WatchOptions): AsyncGenerator<TaskEvent>;
  /** The inbox, as it is. */
  messages(ref: string): Promise<InboxMessage[]>;
  send(ref: string, body: string | Uint8Array, options?: StoreSendOptions): Promise<InboxMessage>;
  approvals(ref: string): Promise<ApprovalRequest[]>;
  approve(
    ref: string,
    n: number,
    decision: ApprovalDecision,
    options?: StoreApproveOptions,
  ): Promise<ApprovalRequest>;
  /** Downward only; marks the task and its unfinished descendants. */
  cancel(ref: string, options?: ActingAs): Promise<CancelOutcome>;
  /** Waits for the terminal record, under the wait-edge policy. */
  wait(ref: string, options?: WaitOptions): Promise<WaitOutcome>;
}
