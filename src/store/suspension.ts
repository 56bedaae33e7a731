// Suspension: a running task may be stopped without an end and left `suspended` until it is
// resumed. Anyone allowed to cancel it may ask (the `suspend` file, like `cancel`); only the
// executor suspends it, by writing suspended.json before it lets go of attach.lock. The next
// attach removes both files, so the state stays derived: suspended.json without attach.lock held
// and without terminal.json is `suspended`, and nothing else says so.
import { rmSync } from "node:fs";
import { TASK_ID } from "../protocol/index.js";
import { writeFileAtomic, type StoreHooks } from "./atomicFile.js";
import { writeRequestOnce } from "./createTask.js";
import { damaged, StoreCorruptError } from "./errors.js";
import { readTextNoFollowSync } from "./noFollow.js";
import {
  bool,
  int,
  matching,
  nullable,
  oneOf,
  optional,
  strictObject,
  text,
  type ShapeOf,
} from "./recordShape.js";
import type { TaskPaths } from "./taskDir.js";

/** Why a task was suspended: a person or task asked, or the model API's usage limit. */
export const SUSPEND_REASONS = ["request", "usage_limit"] as const;
export type SuspendReason = (typeof SUSPEND_REASONS)[number];

/** The content of a task's `suspend` file: who asked, when, and whether at once. */
export const isSuspendRequest = strictObject({
  /** The task that asked, or null when it came from outside any task. */
  by: nullable(matching(TASK_ID)),
  at: int(),
  /** Stop at once rather than at the agent's next turn boundary. */
  now: bool,
});
export type SuspendRequest = ShapeOf<typeof isSuspendRequest>;

/** suspended.json: why the executor suspended the task, and when it resumes by itself. */
export const isSuspendRecord = strictObject({
  reason: oneOf(SUSPEND_REASONS),
  /** When the executor suspended it, ms since the epoch. */
  at: int(),
  /** When it resumes by itself (a usage limit's reset), ms since the epoch; absent: on request. */
  resumeAt: optional(int()),
  /** What the executor saw, in a person's words (the API's limit and its reset), cut. */
  detail: optional(text),
  /** The last event seq written before the record. */
  lastSeq: int(0),
});
export type SuspendRecord = ShapeOf<typeof isSuspendRecord>;

function readRecordSync<T>(
  path: string,
  shape: (value: unknown) => value is T,
  what: string,
): T | undefined {
  let content: string;
  try {
    content = readTextNoFollowSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    throw new StoreCorruptError(damaged(path, what), { cause: error });
  }
  if (!shape(value)) throw new StoreCorruptError(damaged(path, what));
  return value;
}

/** The suspension record, when the executor left one. */
export function readSuspendedSync(paths: TaskPaths): SuspendRecord | undefined {
  return readRecordSync(paths.suspended, isSuspendRecord, "not a suspension record");
}

/** The request to suspend, when one waits for the executor. */
export function readSuspendRequestSync(paths: TaskPaths): SuspendRequest | undefined {
  return readRecordSync(paths.suspendRequest, isSuspendRequest, "not a suspend request");
}

/** Writes the request, unless one is there already; says whether it wrote it. */
export async function writeSuspendRequest(
  paths: TaskPaths,
  request: SuspendRequest,
): Promise<boolean> {
  return writeRequestOnce(paths, paths.suspendRequest, request);
}

/** Writes suspended.json atomically; only the lock holder calls it, just before it lets go. */
export async function writeSuspended(
  paths: TaskPaths,
  record: SuspendRecord,
  hooks: StoreHooks,
): Promise<void> {
  if (!isSuspendRecord(record)) throw new Error("the suspension record is not valid");
  await writeFileAtomic(paths.suspended, JSON.stringify(record) + "\n", hooks);
  rmSync(paths.suspendRequest, { force: true });
}

/** Removes what a suspension left; the attach that runs the task again calls it under the lock. */
export function clearSuspension(paths: TaskPaths): SuspendRecord | undefined {
  let record: SuspendRecord | undefined;
  try {
    record = readSuspendedSync(paths);
  } catch (error) {
    // A damaged record is removed all the same: the attach that runs the task is its end.
    if (!(error instanceof StoreCorruptError)) throw error;
  }
  rmSync(paths.suspended, { force: true });
  rmSync(paths.suspendRequest, { force: true });
  return record;
}
