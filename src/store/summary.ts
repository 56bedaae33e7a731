// What `list` and `get` show of a task: its spec's small fields, its derived state, and its
// end. `list` reads spec.json (never the prompt), terminal.json when there is one, and probes
// attach.lock only for unfinished tasks.
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { StoreCorruptError } from "./errors.js";
import type { LockHolder } from "./lockHolder.js";
import type { StoreContext } from "./context.js";
import { readApprovals } from "./approvals.js";
import { readInbox, type MessageState } from "./inbox.js";
import { listChildren, readCancelSync, readFullSpec, readSpecSync } from "./readTask.js";
import type { StoredSpec, TaskSpec } from "./spec.js";
import type { SuspendRecord } from "./suspension.js";
import { deriveState, type DerivedState, type TaskState } from "./state.js";
import type { TaskPaths } from "./taskDir.js";
import { isTaskId } from "./taskId.js";
import type { CancelRequest, StoppedBy, TerminalRecord } from "./terminalRecord.js";

export interface TaskSummary {
  id: string;
  state: TaskState;
  /** The bound that ended a failed task, when one did. */
  stoppedBy?: StoppedBy;
  createdAt: number;
  /** When the terminal record was written. */
  finishedAt?: number;
  deadline: number;
  parent: string | null;
  /** The root of the task's tree (itself for a root). */
  root: string;
  hop: number;
  labels: Record<string, string>;
  repo?: string;
  /** The prompt's first line, cleaned, cut to 256 bytes. */
  title: string;
  /** A cancel file exists: the task is cancelling, or was cancelled. */
  cancelRequested: boolean;
  /** The executor's summary of what it did, cut to 4 KiB (summaryCut says whether it was). */
  summary?: string;
  summaryCut?: boolean;
  /** Who runs it (pid, host, since), as the holder wrote it; only while running. */
  holder?: LockHolder;
  /** Why it is suspended and when it resumes by itself; only while suspended. */
  suspension?: SuspendRecord;
  /** Only while suspended: whether a process waits to resume it at its resume time. */
  resumeWaiter?: boolean;
  /** The creator's settings from spec.json: opaque to the store, read by the host for lists. */
  settings: Record<string, unknown>;
  /** Once finished: the host's facts from the terminal record (opaque to the store). */
  details?: Record<string, unknown>;
}

export interface TaskDetails extends TaskSummary {
  spec: TaskSpec;
  terminal?: TerminalRecord;
  cancel?: CancelRequest;
  children: string[];
  /** How many messages the inbox has in each state. */
  messages: Record<MessageState, number>;
  /** How many permission prompts wait for a person, and how many were answered. */
  approvals: { pending: number; answered: number };
}

/** How many tasks list() reads before it lets other work on the event loop run. */
const LIST_BATCH = 64;

export function summarize(
  paths: TaskPaths,
  spec: StoredSpec,
  derived: DerivedState = deriveState(paths),
): TaskSummary {
  return summaryOf(spec, derived, existsSync(paths.cancel));
}

/** A task's summary from its spec, its derived state and whether a cancel was asked: any store. */
export function summaryOf(
  spec: StoredSpec,
  derived: DerivedState,
  cancelRequested: boolean,
): TaskSummary {
  const summary: TaskSummary = {
    id: spec.id,
    state: derived.state,
    createdAt: spec.createdAt,
    deadline: spec.deadline,
    parent: spec.parent,
    root: spec.ancestors[0] ?? spec.id,
    hop: spec.hop,
    labels: spec.labels,
    title: spec.title,
    cancelRequested,
    settings: spec.settings,
  };
  if (spec.repo !== undefined) summary.repo = spec.repo;
  const terminal = derived.terminal;
  if (terminal !== undefined) {
    summary.finishedAt = terminal.at;
    if (terminal.details !== undefined) summary.details = terminal.details;
    if (terminal.stoppedBy !== undefined) summary.stoppedBy = terminal.stoppedBy;
    if (terminal.summary !== undefined) {
      summary.summary = terminal.summary;
      summary.summaryCut = terminal.summaryCut ?? false;
    }
  }
  if (derived.holder !== undefined) summary.holder = derived.holder;
  if (derived.suspension !== undefined) summary.suspension = derived.suspension;
  if (derived.resumeWaiter !== undefined) summary.resumeWaiter = derived.resumeWaiter;
  return summary;
}

export interface ListFilter {
  /** Only tasks in these states. */
  states?: readonly TaskState[];
  /** Only the children of this task (null: only roots). */
  parent?: string | null;
  /**
   * Told of each task whose files cannot be read (a torn or hand-edited spec or terminal
   * record). Such a task is left out of the list, so one damaged task never hides the others.
   */
  onDamaged?: (id: string, error: StoreCorruptError) => void;
  /**
   * Summaries the caller already holds, by id, returned as given without reading the task's
   * files: a finished task's summary never changes. A task no longer in the store is still
   * left out, so removed tasks do not linger.
   */
  known?: ReadonlyMap<string, TaskSummary>;
}

/** One task's summary for the list, or undefined when it is gone, damaged or filtered out. */
function readListed(ctx: StoreContext, id: string, filter: ListFilter): TaskSummary | undefined {
  const paths = ctx.paths(id);
  try {
    const spec = readSpecSync(paths);
    if (spec === undefined) return undefined;
    if (filter.parent !== undefined && spec.parent !== filter.parent) return undefined;
    return summarize(paths, spec);
  } catch (error) {
    if (!(error instanceof StoreCorruptError)) throw error;
    filter.onDamaged?.(id, error);
    return undefined;
  }
}

/** Every task, oldest first. Tasks removed while listing are left out. */
export async function listSummaries(
  ctx: StoreContext,
  filter: ListFilter = {},
): Promise<TaskSummary[]> {
  const ids = (await readdir(ctx.tasksDir)).filter(isTaskId).sort();
  const out: TaskSummary[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i > 0 && i % LIST_BATCH === 0) await new Promise((r) => setImmediate(r));
    const id = ids[i] ?? "";
    const known = filter.known?.get(id);
    const summary = known === undefined ? readListed(ctx, id, filter) : known;
    if (summary === undefined) continue;
    if (filter.parent !== undefined && summary.parent !== filter.parent) continue;
    if (filter.states !== undefined && !filter.states.includes(summary.state)) continue;
    out.push(summary);
  }
  return out;
}

export async function taskDetails(ctx: StoreContext, paths: TaskPaths): Promise<TaskDetails> {
  const spec = await readFullSpec(paths);
  // One read of terminal.json serves the state and the record, so the two always agree.
  const derived = deriveState(paths);
  const summary = summarize(paths, spec, derived);
  const messages: Record<MessageState, number> = { pending: 0, in_flight: 0, delivered: 0 };
  for (const m of await readInbox(paths)) messages[m.state]++;
  const approvals = { pending: 0, answered: 0 };
  for (const r of await readApprovals(paths)) approvals[r.state]++;
  const details: TaskDetails = {
    ...summary,
    spec,
    children: listChildren(paths, ctx.tasksDir),
    messages,
    approvals,
  };
  if (derived.terminal !== undefined) details.terminal = derived.terminal;
  const cancel = readCancelSync(paths);
  if (cancel !== undefined) details.cancel = cancel;
  return details;
}
