// The workspaces of a task as `show` lists them: the task's own repository, then each one bound
// with --workspace, with its base and, once the task has ended, whether it changed. The spec
// says what was bound (the host resolved it when the task was made); the terminal record says
// what the host verified. Both are read as plain fields and cleaned when printed.
import { cleanLine, MAIN_WORKSPACE } from "../protocol/index.js";
import type { TaskDetails } from "../store/index.js";

export interface WorkspaceView {
  name: string;
  repo?: string;
  base?: string;
  /** Once finished: the head the host verified (the base when unchanged), else absent. */
  head?: string;
  /** Once finished: whether the host verified changes of it; absent before. */
  changes?: boolean;
  commits?: number;
}

function fields(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function textOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The finished facts of a workspace from a terminal record's details. */
function finished(view: WorkspaceView, facts: Record<string, unknown>): WorkspaceView {
  const head = textOf(facts.head);
  if (head !== undefined) view.head = head;
  if (typeof facts.changes === "boolean") view.changes = facts.changes;
  if (typeof facts.commits === "number") view.commits = facts.commits;
  return view;
}

/** Every workspace of a task that binds others; an empty list for a task that binds none. */
export function workspacesView(details: TaskDetails): WorkspaceView[] {
  const bound = details.spec.settings.workspaces;
  if (!Array.isArray(bound) || bound.length === 0) return [];
  const terminal = details.terminal?.details;
  const facts = Array.isArray(terminal?.workspaces) ? terminal.workspaces.map(fields) : [];
  const views: WorkspaceView[] = [];
  const main: WorkspaceView = { name: MAIN_WORKSPACE };
  if (details.spec.repo !== undefined) main.repo = details.spec.repo;
  if (details.spec.base !== undefined) main.base = details.spec.base;
  views.push(terminal === undefined ? main : finished(main, terminal));
  for (const entry of bound.map(fields)) {
    const name = textOf(entry.name) ?? "?";
    const view: WorkspaceView = { name };
    const repo = textOf(entry.repo);
    const base = textOf(entry.base);
    if (repo !== undefined) view.repo = repo;
    if (base !== undefined) view.base = base;
    const mine = facts.find((f) => f.name === name);
    views.push(mine === undefined ? view : finished(view, mine));
  }
  return views;
}

/** `show`'s lines: one per workspace, its name, repository, base and what became of it. */
export function workspaceLines(views: readonly WorkspaceView[]): string[] {
  if (views.length === 0) return [];
  const width = Math.max(...views.map((v) => v.name.length));
  return [
    "workspaces:",
    ...views.map((v) => {
      const state =
        v.changes === true
          ? `changed${v.commits === undefined ? "" : ` (${v.commits} commit${v.commits === 1 ? "" : "s"})`}, head ${(v.head ?? "").slice(0, 12)}`
          : v.changes === false
            ? "unchanged: no branch to fetch"
            : "not finished";
      const base = v.base === undefined ? "" : `  base ${v.base.slice(0, 12)}`;
      return cleanLine(`  ${v.name.padEnd(width)}  ${v.repo ?? ""}${base}  ${state}`);
    }),
  ];
}
