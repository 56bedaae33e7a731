// What `run` and `show` print under a failed task: the last lines of the agent's stderr and the
// task's last events, each section naming the verb that shows all of it, and the fix the host
// recorded when it knows one (a refused API key). Everything here came from the sandbox or
// through it, so every line is cleaned and cut before a terminal sees it.
import { closeSync, constants, fstatSync, readSync } from "node:fs";
import { API_FAILURE_EVENT_TYPE, OUTPUT_EVENT_TYPE, taskLayout } from "../host/index.js";
import { cleanLine, cutText, RESULT_FILES } from "../protocol/index.js";
import {
  isRealDir,
  openNoFollowSync,
  Tasks,
  type TaskEvent,
  type TaskStore,
} from "../store/index.js";
import { CLI_LIMITS } from "./limits.js";
import { eventLine } from "./eventLine.js";

/**
 * Events that say why the host ended a task: shown even when later ones (the runner winding
 * down) would push them out of the last few.
 */
const PINNED_EVENTS: ReadonlySet<string> = new Set([API_FAILURE_EVENT_TYPE, "bound"]);

/** The store's own events, which say nothing about why a task failed. */
const BOOKKEEPING_EVENTS: ReadonlySet<string> = new Set(["attached", "finished"]);

export interface FailureTailOptions {
  /** Event types to leave out: show lists the agent's own under `recent` already. */
  skipTypes?: ReadonlySet<string>;
}

/** The last bytes of a file in results/, split into lines; undefined when it is not there. */
function tailLines(path: string, bytes: number): { lines: string[]; cut: boolean } | undefined {
  let fd: number;
  try {
    fd = openNoFollowSync(path, constants.O_RDONLY);
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    const lines = buffer.subarray(0, read).toString("utf8").split("\n");
    // A tail that starts mid-file starts mid-line: that first piece is dropped.
    if (start > 0) lines.shift();
    while (lines.length > 0 && lines.at(-1)?.trim() === "") lines.pop();
    return { lines, cut: start > 0 };
  } finally {
    closeSync(fd);
  }
}

function shown(text: string): string {
  const { text: cut, cut: wasCut } = cutText(cleanLine(text), CLI_LIMITS.failureTailLineBytes);
  return wasCut ? `${cut}…` : cut;
}

/** The agent's stderr as events (a command agent's live output): shown above, from the file. */
function isStderrLine(event: TaskEvent): boolean {
  return event.type === OUTPUT_EVENT_TYPE && event.stream === "stderr";
}

async function lastEvents(
  tasks: TaskStore,
  id: string,
  options: FailureTailOptions & { stderrShown: boolean },
): Promise<TaskEvent[]> {
  const keep = (event: TaskEvent): boolean =>
    !BOOKKEEPING_EVENTS.has(event.type) &&
    options.skipTypes?.has(event.type) !== true &&
    !(options.stderrShown && isStderrLine(event));
  const last: TaskEvent[] = [];
  let pinned: TaskEvent | undefined;
  const push = (event: TaskEvent): void => {
    if (!keep(event)) return;
    if (PINNED_EVENTS.has(event.type)) pinned = event;
    last.push(event);
    if (last.length > CLI_LIMITS.failureTailEvents) last.shift();
  };
  for await (const event of tasks.watch(id, { follow: false })) push(event);
  return pinned === undefined || last.includes(pinned) ? last : [pinned, ...last.slice(1)];
}

/**
 * The lines printed under a failed task: the agent's stderr (or where its account is when it
 * wrote none), the last events, and the recorded fix. `short` is the id as shown. Best effort:
 * a part that cannot be read is left out, never an error of the verb that prints it.
 */
export async function failureTail(
  tasks: TaskStore,
  id: string,
  short: string,
  options: FailureTailOptions = {},
): Promise<string[]> {
  const out: string[] = [];
  // A fleet's task keeps its results on the worker's machine: its events are what is read.
  const layout = tasks instanceof Tasks ? taskLayout(tasks.dataDir, id) : undefined;
  let results = false;
  try {
    results = layout !== undefined && isRealDir(layout.results);
  } catch {
    // A link planted in place of results/ is the store's to refuse; nothing is read through it.
  }
  const stderr =
    results && layout !== undefined
      ? tailLines(layout.result(RESULT_FILES.log), CLI_LIMITS.failureTailBytes)
      : undefined;
  if (stderr !== undefined && stderr.lines.length > 0) {
    const lines = stderr.lines.slice(-CLI_LIMITS.failureTailLines);
    const all = `warden logs --agent-log ${short}`;
    const part = lines.length < stderr.lines.length || stderr.cut;
    const head = part
      ? `agent stderr, last ${lines.length} lines (all: ${all}):`
      : `agent stderr (${all}):`;
    out.push(head, ...lines.map((l) => `  ${shown(l)}`));
  } else if (stderr !== undefined) {
    out.push(`agent stderr: empty; the agent's own stream: warden logs --transcript ${short}`);
  }
  const stderrShown = stderr !== undefined && stderr.lines.length > 0;
  const events = await lastEvents(tasks, id, { ...options, stderrShown }).catch(() => []);
  if (events.length > 0) {
    out.push(`last events (all: warden watch ${short} --no-follow):`);
    out.push(...events.map((event) => `  ${shown(eventLine(event))}`));
  }
  const details = (await tasks.get(id).catch(() => undefined))?.terminal?.details;
  if (typeof details?.hint === "string") out.push(`hint: ${shown(details.hint)}`);
  return out;
}
