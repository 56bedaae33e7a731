// The files of one task directory, `tasks/<id>/`, and what each one means (DESIGN.md "The store").
import { join } from "node:path";
import { DATA_DIRS } from "./dataDir.js";

export const TASK_FILES = {
  /** The immutable task, written once by its creator. */
  spec: "spec.json",
  /** The prompt, written once with spec.json (kept apart so lists never read it). */
  prompt: "prompt.md",
  /** flock(2)ed by the executor; its content (pid, host, start) is diagnostic only. */
  attachLock: "attach.lock",
  /** `{"seq","at","type",...}` lines, appended only by the lock holder. */
  events: "events.jsonl",
  /** Messages and their states, replaced atomically under inbox.lock. */
  inbox: "inbox.json",
  inboxLock: "inbox.lock",
  /** The files sent with messages, `message-files/<n>/<name>`, each written before its record. */
  messageFiles: "message-files",
  /** The files the agent handed back with its replies, `reply-files/<n>/<name>`. */
  replyFiles: "reply-files",
  /** Its existence is the cancel request; its content says who asked and when. */
  cancel: "cancel",
  /** Its existence means finished; written by the executor as its last act. */
  terminal: "terminal.json",
  /** The verified results, written by the executor. */
  results: "results",
  /** One empty file per child, named by the child's id: the downward index of the tree. */
  children: "children",
  /** Permission prompts put to a person and their answers, replaced atomically under its lock. */
  approvals: "approvals.json",
  approvalsLock: "approvals.lock",
  /** flock(2)ed by a background runner from the moment it queues the task (runQueue.ts). */
  queueLock: "queue.lock",
  /** Its existence is a request to suspend the running task; its content says when and how. */
  suspendRequest: "suspend",
  /** Written by the executor before it lets go of a task it suspended; removed by the next attach. */
  suspended: "suspended.json",
  /** flock(2)ed by the process that waits to resume a suspended task at its resume time. */
  resumeLock: "resume.lock",
  /**
   * flock(2)ed by a `warden start` or `resume` from the moment it has the task's id until it
   * exits, so that `wait` and `watch` do not say nobody runs a task that is being started while
   * its checks run, before it attaches (which can take seconds on a loaded machine).
   */
  startLock: "start.lock",
} as const;

/** The paths of one task, by name; the host's layout (host/taskLayout.ts) adds its own to them. */
export class TaskPaths {
  readonly dir: string;
  constructor(
    dataDir: string,
    readonly id: string,
  ) {
    this.dir = join(dataDir, DATA_DIRS.tasks, id);
  }
  get spec(): string {
    return join(this.dir, TASK_FILES.spec);
  }
  get prompt(): string {
    return join(this.dir, TASK_FILES.prompt);
  }
  get attachLock(): string {
    return join(this.dir, TASK_FILES.attachLock);
  }
  get events(): string {
    return join(this.dir, TASK_FILES.events);
  }
  get inbox(): string {
    return join(this.dir, TASK_FILES.inbox);
  }
  get inboxLock(): string {
    return join(this.dir, TASK_FILES.inboxLock);
  }
  get messageFiles(): string {
    return join(this.dir, TASK_FILES.messageFiles);
  }
  get replyFiles(): string {
    return join(this.dir, TASK_FILES.replyFiles);
  }
  get cancel(): string {
    return join(this.dir, TASK_FILES.cancel);
  }
  get terminal(): string {
    return join(this.dir, TASK_FILES.terminal);
  }
  get results(): string {
    return join(this.dir, TASK_FILES.results);
  }
  get children(): string {
    return join(this.dir, TASK_FILES.children);
  }
  get approvals(): string {
    return join(this.dir, TASK_FILES.approvals);
  }
  get approvalsLock(): string {
    return join(this.dir, TASK_FILES.approvalsLock);
  }
  get queueLock(): string {
    return join(this.dir, TASK_FILES.queueLock);
  }
  get startLock(): string {
    return join(this.dir, TASK_FILES.startLock);
  }
  get suspendRequest(): string {
    return join(this.dir, TASK_FILES.suspendRequest);
  }
  get suspended(): string {
    return join(this.dir, TASK_FILES.suspended);
  }
  get resumeLock(): string {
    return join(this.dir, TASK_FILES.resumeLock);
  }
}
