// Which notifications a change of a task makes, decided by a pure function from what was told
// before and what the task is now: its end (finished, failed, cancelled, or a bound that ended
// it) and each approval request that waits for a person. Each is told once.

export type NotifyKind = "succeeded" | "failed" | "cancelled" | "bound" | "approval";

export interface Notification {
  readonly event: NotifyKind;
  readonly at: number;
  readonly task: {
    readonly id: string;
    readonly title: string;
    readonly repo?: string;
    readonly state: string;
    readonly stoppedBy?: string;
  };
  readonly approval?: { readonly n: number; readonly tool: string; readonly input: string };
  /** Notifications the rate or the queue dropped before this one. */
  readonly dropped?: number;
}

/** What a task is now, as far as notifications care. */
export interface TaskNow {
  readonly id: string;
  readonly title: string;
  readonly repo?: string;
  readonly state: string;
  readonly stoppedBy?: string;
  readonly finished: boolean;
  readonly pending: readonly {
    readonly n: number;
    readonly tool: string;
    readonly input: string;
  }[];
}

/** The keys already told: `<id>:end` and `<id>:approval:<n>`. */
export type Told = Set<string>;

/** The notifications `task` makes now, and marks them told. */
export function notificationsFor(task: TaskNow, told: Told, at: number): Notification[] {
  const out: Notification[] = [];
  const about = {
    id: task.id,
    title: task.title,
    ...(task.repo === undefined ? {} : { repo: task.repo }),
    state: task.state,
    ...(task.stoppedBy === undefined ? {} : { stoppedBy: task.stoppedBy }),
  };
  for (const request of task.pending) {
    const key = `${task.id}:approval:${request.n}`;
    if (told.has(key)) continue;
    told.add(key);
    out.push({ event: "approval", at, task: about, approval: request });
  }
  const end = `${task.id}:end`;
  if (task.finished && !told.has(end)) {
    told.add(end);
    const event: NotifyKind =
      task.stoppedBy !== undefined
        ? "bound"
        : task.state === "succeeded" || task.state === "cancelled"
          ? task.state
          : "failed";
    out.push({ event, at, task: about });
  }
  return out;
}

/** Marks what `task` would tell now as told, without telling it: for tasks before the start. */
export function markTold(task: TaskNow, told: Told): void {
  notificationsFor(task, told, 0);
}
