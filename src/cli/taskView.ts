// How a task is shown: one JSON object (--json) or a few lines of text. The same shape for run,
// create, start, wait and show, so scripts read every verb the same way.
import { timeText } from "../lang/index.js";
import { cleanLine } from "../protocol/index.js";
import {
  isExpired,
  type TaskDetails,
  type TaskSummary,
  type TerminalRecord,
} from "../store/index.js";
import { jsonText } from "./jsonText.js";
import { standardOut } from "./standardStreams.js";

export interface TaskView {
  id: string;
  state: TaskSummary["state"];
  /** Once finished: the bound that ended it, or null. */
  stoppedBy?: string | null;
  repo?: string;
  /** The start commit the host computed. */
  base?: string;
  /** Once finished: the head warden verified (the base when nothing changed), or null. */
  head?: string | null;
  /** Once finished: whether there are verified changes to fetch. */
  changes?: boolean;
  title: string;
  createdAt: string;
  deadline: string;
  finishedAt?: string;
  summary?: string;
  error?: string;
  attempts?: number;
  cancelRequested: boolean;
  /** Present (true) when nobody runs the task and its deadline has passed: it can never run. */
  expired?: true;
  /** Once finished, for a task that bound workspaces: whether each bound one changed. */
  workspaces?: { name: string; changes: boolean }[];
  /** While suspended: why (`request` or `usage_limit`), and when it resumes by itself. */
  suspended?: { reason: string; at: string; resumeAt?: string; detail?: string };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The host's verified facts from a terminal record. */
function facts(terminal: TerminalRecord | undefined): { head?: string; changes?: boolean } {
  const details = terminal?.details ?? {};
  const out: { head?: string; changes?: boolean } = {};
  if (typeof details.head === "string") out.head = details.head;
  if (typeof details.changes === "boolean") out.changes = details.changes;
  return out;
}

export function taskView(
  summary: TaskSummary,
  extra: { base?: string; terminal?: TerminalRecord } = {},
): TaskView {
  const view: TaskView = {
    id: summary.id,
    state: summary.state,
    title: summary.title,
    createdAt: iso(summary.createdAt),
    deadline: iso(summary.deadline),
    cancelRequested: summary.cancelRequested,
  };
  if (summary.stoppedBy !== undefined) view.stoppedBy = summary.stoppedBy;
  if (isExpired(summary, Date.now())) view.expired = true;
  if (summary.repo !== undefined) view.repo = summary.repo;
  if (extra.base !== undefined) view.base = extra.base;
  if (extra.terminal !== undefined) {
    // A finished task always has these keys, so scripts need not test for them.
    const verified = facts(extra.terminal);
    view.stoppedBy = extra.terminal.stoppedBy ?? null;
    view.head = verified.head ?? null;
    view.changes = verified.changes ?? false;
  }
  const suspension = summary.suspension;
  if (summary.state === "suspended" && suspension !== undefined) {
    view.suspended = { reason: suspension.reason, at: iso(suspension.at) };
    if (suspension.resumeAt !== undefined) view.suspended.resumeAt = iso(suspension.resumeAt);
    if (suspension.detail !== undefined) view.suspended.detail = suspension.detail;
  }
  if (summary.finishedAt !== undefined) view.finishedAt = iso(summary.finishedAt);
  if (summary.summary !== undefined) view.summary = summary.summary;
  if (extra.terminal?.error !== undefined) view.error = extra.terminal.error;
  if (extra.terminal !== undefined) view.attempts = extra.terminal.attempts;
  const bound = extra.terminal?.details?.workspaces;
  if (Array.isArray(bound) && bound.length > 0) {
    view.workspaces = bound.map((w: unknown) => {
      const facts = (typeof w === "object" && w !== null ? w : {}) as Record<string, unknown>;
      return { name: String(facts.name), changes: facts.changes === true };
    });
  }
  return view;
}

/**
 * The state in words: `failed (deadline)`, `created (expired)`, `suspended (until 14:02:11)`,
 * or the state alone.
 */
export function stateWords(view: TaskView, gap = " "): string {
  if (view.stoppedBy != null) return `${view.state}${gap}(${view.stoppedBy})`;
  const resumeAt = view.suspended?.resumeAt;
  if (view.expired !== true && resumeAt !== undefined) {
    return `${view.state}${gap}(until ${timeText(Date.parse(resumeAt), Date.now())})`;
  }
  return view.expired === true ? `${view.state}${gap}(expired)` : view.state;
}

/** The view of a task read with `get`. */
export function detailsView(details: TaskDetails): TaskView {
  return taskView(details, { base: details.spec.base, terminal: details.terminal });
}

/** One line for a task's end: `<id> succeeded: <summary>`, `<id> failed (deadline): <error>`. */
export function endLine(view: TaskView): string {
  const state = view.stoppedBy == null ? view.state : `${view.state} (${view.stoppedBy})`;
  const text = view.error ?? view.summary;
  return `${view.id} ${state}${text === undefined ? "" : `: ${cleanLine(text)}`}`;
}

/** What to do next, for a finished task; `short` is the id as shown (Tasks.shortId). */
export function nextSteps(view: TaskView, short: string): string[] {
  const bound = (view.workspaces ?? [])
    .filter((w) => w.changes)
    .map(
      (w) => `fetch ${cleanLine(w.name)}:  warden fetch ${short} --workspace ${cleanLine(w.name)}`,
    );
  if (view.changes === true) {
    return [
      `see the changes: warden diff ${short}`,
      `fetch them:      warden fetch ${short}`,
      ...bound,
    ];
  }
  if (bound.length > 0) return bound;
  if (view.state === "failed") return [`see what happened: warden logs ${short}`];
  return [];
}

/** Every --json output goes through here: one line, terminal-active characters escaped. */
export function printJson(value: unknown): void {
  standardOut.write(jsonText(value) + "\n");
}
