// A workspace's name (--workspace NAME=PATH): a directory name inside the sandbox and part of a
// results file name, so a short plain word: a letter, then letters, digits, `_` or `-`. It can
// never be `.` or `..`, hold a `/`, or pass for an option. Apart from workspaces.ts so that
// result.ts may use it without a cycle of imports.
// It loads no zod: commands that only show a task (show, ls) check names without the schemas.
import { LIMITS } from "./limits.js";
import { MAIN_WORKSPACE } from "./names.js";

export { MAIN_WORKSPACE } from "./names.js";

/** A workspace's name, whose length LIMITS.workspaceNameBytes bounds. */
export const WORKSPACE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** Why `name` is not a workspace name a task may bind, or undefined when it is one. */
export function workspaceNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (Buffer.byteLength(name) > LIMITS.workspaceNameBytes) {
    return `it is over ${LIMITS.workspaceNameBytes} bytes`;
  }
  if (!WORKSPACE_NAME.test(name)) {
    return "it must start with a letter and hold only letters, digits, _ and -";
  }
  if (name === MAIN_WORKSPACE) return `${MAIN_WORKSPACE} is the task's own repository`;
  return undefined;
}
