// What `show` says of a task's checkpoints: the last one kept, and which one each attach that
// resumed started from. Read from the task's events (`checkpoint`, `resumed`), which the host
// wrote; their fields are still checked for shape, since a damaged file is possible.
import { timeText } from "../lang/index.js";
import type { TaskEvent } from "../store/index.js";

export interface CheckpointView {
  /** The last checkpoint kept: its number, when, and the turn boundary it was taken at. */
  last?: { checkpoint: number; at: number; turn: number };
  /** The latest resume: the checkpoint it started from, why, and when. */
  resumed?: { checkpoint: number; reason: string; at: number; from?: string };
}

const count = (v: unknown): number | undefined =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined;

/** The view of the events, or undefined when the task has no checkpoint and never resumed. Pure. */
export function checkpointView(events: readonly TaskEvent[]): CheckpointView | undefined {
  const view: CheckpointView = {};
  for (const event of events) {
    const checkpoint = count(event.checkpoint);
    if (checkpoint === undefined) continue;
    if (event.type === "checkpoint") {
      view.last = { checkpoint, at: event.at, turn: count(event.turn) ?? 0 };
    } else if (event.type === "resumed") {
      const reason =
        event.reason === "continued" || event.reason === "suspended" ? event.reason : "interrupted";
      view.resumed = {
        checkpoint,
        reason,
        at: event.at,
        ...(typeof event.from === "string" ? { from: event.from } : {}),
      };
    }
  }
  return view.last === undefined && view.resumed === undefined ? undefined : view;
}

/** show's rows for the view. */
export function checkpointRows(
  view: CheckpointView | undefined,
  now: number,
): [string, string | undefined][] {
  const { last, resumed } = view ?? {};
  return [
    [
      "checkpoint",
      last === undefined
        ? undefined
        : `${last.checkpoint}, kept ${timeText(last.at, now)} (turn boundary ${last.turn})`,
    ],
    [
      "resumed",
      resumed === undefined
        ? undefined
        : resumed.reason === "continued"
          ? `the conversation of ${resumed.from ?? "its parent"}, ${timeText(resumed.at, now)}`
          : `from checkpoint ${resumed.checkpoint} after ${resumed.reason === "suspended" ? "a suspension" : "an interruption"}, ${timeText(resumed.at, now)}`,
    ],
  ];
}
