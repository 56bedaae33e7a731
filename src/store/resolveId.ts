// Turning what a user typed into a task id: a whole id, or a unique prefix of at least 4
// characters. Upper case is accepted (ULIDs are often written so); an ambiguous prefix names
// its candidates.
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { cleanLine } from "../protocol/index.js";
import {
  AmbiguousIdError,
  BadTaskIdError,
  noSuchTask,
  notATaskId,
  TaskNotFoundError,
} from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import { isIdAlphabet, isTaskId } from "./taskId.js";

const ID_LENGTH = 26;

export async function resolveTaskId(tasksDir: string, ref: string): Promise<string> {
  const wanted = ref.trim().toLowerCase();
  if (wanted === "" || !isIdAlphabet(wanted)) {
    throw new BadTaskIdError(notATaskId(ref, "it has characters no task id has"));
  }
  if (wanted.length > ID_LENGTH) {
    throw new BadTaskIdError(notATaskId(ref, "it is longer than a task id"));
  }
  if (wanted.length === ID_LENGTH) {
    if (!isTaskId(wanted)) throw new BadTaskIdError(notATaskId(ref, "it is not a valid ULID"));
    if (!existsSync(join(tasksDir, wanted))) throw new TaskNotFoundError(noSuchTask(wanted));
    return wanted;
  }
  if (wanted.length < STORE_LIMITS.minIdPrefix) {
    throw new BadTaskIdError(
      notATaskId(ref, `a prefix needs at least ${STORE_LIMITS.minIdPrefix} characters`),
    );
  }
  const matches = (await readdir(tasksDir))
    .filter((name) => name.startsWith(wanted) && isTaskId(name))
    .sort();
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
