// The warning `run` and `create` give when the working tree holds changes beyond the commit the
// task starts from: the task sees the commit only, and a person who just edited a file (or the
// agent's own script) expects it to see that edit.
import { relativeProgram, workingTreeChanges, type WorkingTreeChanges } from "../host/index.js";
import { cleanLine } from "../protocol/index.js";
import { standardError } from "./standardStreams.js";

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The warning's lines for a task that starts from `base`, or none when the working tree is
 * clean or at another commit (the task was asked to start elsewhere). Pure.
 */
export function uncommittedWarning(
  changes: WorkingTreeChanges,
  base: string,
  command: readonly string[] | undefined,
): string[] {
  if (changes.head !== base || changes.changed + changes.untracked === 0) return [];
  const parts: string[] = [];
  if (changes.changed > 0)
    parts.push(count(changes.changed, "uncommitted change", "uncommitted changes"));
  if (changes.untracked > 0)
    parts.push(count(changes.untracked, "untracked file", "untracked files"));
  const shown = changes.paths.map((path) => cleanLine(path)).join(", ");
  const more = changes.changed + changes.untracked > changes.paths.length ? ", ..." : "";
  const program = relativeProgram(command);
  const paths =
    program === undefined
      ? ""
      : `; ${cleanLine(program)} in the agent's command is read from that commit too`;
  return [
    `warden: warning: the working tree has ${parts.join(" and ")} (${shown}${more}); the task starts from commit ${base.slice(0, 12)} and will not see them${paths}`,
    "hint: commit them first for the task to see them (git add -A && git commit)",
  ];
}

/**
 * Starts the look at the working tree the warning needs (a git status) and never rejects: a git
 * failure here is not the task's, and undefined then says nothing is known.
 */
export function lookAtWorkingTree(dir: string): Promise<WorkingTreeChanges | undefined> {
  return workingTreeChanges(dir).catch(() => undefined);
}

/** Writes the warning to stderr, once, when the look found one. */
export async function warnUncommitted(
  looked: Promise<WorkingTreeChanges | undefined>,
  base: string,
  command: readonly string[] | undefined,
): Promise<void> {
  const changes = await looked;
  if (changes === undefined) return;
  for (const line of uncommittedWarning(changes, base, command)) standardError.write(line + "\n");
}
