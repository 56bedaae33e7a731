// Turning what a user typed into a task id: a whole id, a unique prefix of at least 4
// characters, or `@last` (the newest task) and `@last-N` (the Nth before it). Upper case is
// accepted (ULIDs are often written so); an ambiguous prefix names its candidates.
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { cleanLine } from "../protocol/index.js";
import {
  AmbiguousIdError,
  BadTaskIdError,
  NoRecentTaskError,
  noSuchTask,
  notATaskId,
  TaskNotFoundError,
} from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import { isIdAlphabet, isTaskId } from "./taskId.js";

const ID_LENGTH = 26;
/** `@last` or `@last-N`; N in decimal, at most as long as a safe integer is. */
const RECENT = /^@last(?:-([0-9]{1,15}))?$/;

/** Every task id in the store, oldest first (ids sort by creation time). */
export async function readTaskIds(tasksDir: string): Promise<string[]> {
  return (await readdir(tasksDir)).filter(isTaskId).sort();
}

/** The task `@last-N` names: N tasks before the newest, counting by id (creation time). */
async function resolveRecent(ids: TaskIds, ref: string, wanted: string): Promise<string> {
  const match = RECENT.exec(wanted);
  if (match === null) {
    throw new BadTaskIdError(
      notATaskId(ref, "the only names starting with @ are @last and @last-N"),
    );
  }
  const back = Number(match[1] ?? "0");
  const all = await ids.all();
  const id = all[all.length - 1 - back];
  if (id === undefined) {
    const count =
      all.length === 0 ? "no tasks" : all.length === 1 ? "1 task" : `${all.length} tasks`;
    const which = back === 0 ? "the newest task" : `the task ${back} before the newest`;
    throw new NoRecentTaskError(
      `${cleanLine(ref.trim())} names ${which}, but this data directory has ${count}`,
    );
  }
  return id;
}

/** Where a store's task ids come from: every id, oldest first, and whether one exists. */
export interface TaskIds {
  all(): Promise<string[]>;
  exists(id: string): Promise<boolean>;
}

export async function resolveTaskId(tasksDir: string, ref: string): Promise<string> {
  return resolveAmong(
    {
      all: () => readTaskIds(tasksDir),
      exists: (id) => Promise.resolve(existsSync(join(tasksDir, id))),
    },
    ref,
  );
}

/** Resolves a reference among a store's ids, by the rules of resolveTaskId. */
export async function resolveAmong(ids: TaskIds, ref: string): Promise<string> {
  const wanted = ref.trim().toLowerCase();
  if (wanted.startsWith("@")) return resolveRecent(ids, ref, wanted);
  if (wanted === "" || !isIdAlphabet(wanted)) {
    throw new BadTaskIdError(notATaskId(ref, "it has characters no task id has"));
  }
  if (wanted.length > ID_LENGTH) {
    throw new BadTaskIdError(notATaskId(ref, "it is longer than a task id"));
  }
  if (wanted.length === ID_LENGTH) {
    if (!isTaskId(wanted)) throw new BadTaskIdError(notATaskId(ref, "it is not a valid ULID"));
    if (!(await ids.exists(wanted))) throw new TaskNotFoundError(noSuchTask(wanted));
    return wanted;
  }
  if (wanted.length < STORE_LIMITS.minIdPrefix) {
    throw new BadTaskIdError(
      notATaskId(ref, `a prefix needs at least ${STORE_LIMITS.minIdPrefix} characters`),
    );
  }
  const matches = (await ids.all()).filter((name) => name.startsWith(wanted));
  const [first, ...rest] = matches;
  if (first === undefined) throw new TaskNotFoundError(noSuchTask(wanted));
  if (rest.length > 0) {
    const shown = STORE_LIMITS.ambiguousCandidates;
    const more = matches.length > shown ? ` and ${matches.length - shown} more` : "";
    throw new AmbiguousIdError(
      `the prefix ${cleanLine(wanted)} matches ${matches.length} tasks: ${matches.slice(0, shown).join(", ")}${more}`,
      { candidates: matches },
    );
  }
  return first;
}
