// Reading a task's files without any lock: each is written once, or replaced atomically, or
// (events.jsonl) appended in whole lines, so a reader never needs to exclude a writer. None is
// read through a link planted in its place (PLANTED_LINK).
import { existsSync, readdirSync } from "node:fs";
import { parseJsonFile, readJsonFile } from "./atomicFile.js";
import { damaged, noSuchTask, StoreCorruptError, TaskNotFoundError } from "./errors.js";
import { isStoredSpec, type StoredSpec, type TaskSpec } from "./spec.js";
import type { TaskPaths } from "./taskDir.js";
import { isTaskId } from "./taskId.js";
import { readTextNoFollow, readTextNoFollowSync } from "./noFollow.js";
import {
  isCancelRequest,
  isTerminalRecord,
  type CancelRequest,
  type TerminalRecord,
} from "./terminalRecord.js";

function parseSpec(path: string, text: string): StoredSpec {
  const value = parseJsonFile(path, text);
  if (!isStoredSpec(value)) throw new StoreCorruptError(damaged(path, "not a task spec"));
  return value;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** A file's text, read without following a link; undefined when it is not there. */
function readTextIfThereSync(path: string): string | undefined {
  try {
    return readTextNoFollowSync(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** spec.json; a missing one means there is no such task (task directories appear whole). */
export async function readSpec(paths: TaskPaths): Promise<StoredSpec> {
  let text: string;
  try {
    text = await readTextNoFollow(paths.spec);
  } catch (error) {
    if (isMissing(error)) throw new TaskNotFoundError(noSuchTask(paths.id));
    throw error;
  }
  return parseSpec(paths.spec, text);
}

/** readSpec without yielding to the event loop, for listing thousands of tasks. */
export function readSpecSync(paths: TaskPaths): StoredSpec | undefined {
  const text = readTextIfThereSync(paths.spec);
  return text === undefined ? undefined : parseSpec(paths.spec, text);
}

/** The spec with its prompt. */
export async function readFullSpec(paths: TaskPaths): Promise<TaskSpec> {
  const spec = await readSpec(paths);
  const prompt = await readTextNoFollow(paths.prompt);
  return { ...spec, prompt };
}

function parseTerminal(path: string, value: unknown): TerminalRecord | undefined {
  if (value === undefined) return undefined;
  if (!isTerminalRecord(value)) throw new StoreCorruptError(damaged(path, "not a terminal record"));
  return value;
}

export async function readTerminal(paths: TaskPaths): Promise<TerminalRecord | undefined> {
  return parseTerminal(paths.terminal, await readJsonFile(paths.terminal));
}

export function readTerminalSync(paths: TaskPaths): TerminalRecord | undefined {
  // Most tasks a list reads are unfinished: a stat is cheaper than a failed open that throws.
  if (!existsSync(paths.terminal)) return undefined;
  const text = readTextIfThereSync(paths.terminal);
  return text === undefined
    ? undefined
    : parseTerminal(paths.terminal, parseJsonFile(paths.terminal, text));
}

/** The cancel request, if there is one. The file appears whole (it is linked into place). */
export function readCancelSync(paths: TaskPaths): CancelRequest | undefined {
  if (!existsSync(paths.cancel)) return undefined;
  const text = readTextIfThereSync(paths.cancel);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StoreCorruptError(damaged(paths.cancel, "not a cancel request"), { cause: error });
  }
  if (!isCancelRequest(value)) {
    throw new StoreCorruptError(damaged(paths.cancel, "not a cancel request"));
  }
  return value;
}

/** The ids of the children a task has had that still exist. */
export function listChildren(paths: TaskPaths, tasksDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(paths.children);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  return names.filter((n) => isTaskId(n) && existsSync(`${tasksDir}/${n}`)).sort();
}
