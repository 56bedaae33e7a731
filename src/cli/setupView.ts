// What `show` says of a task's setup: what it runs (from its settings), and how its last attach
// went (from its events): restored from the cache, or run, for how long, and whether it failed.
import { SETUP_EVENTS } from "../host/index.js";
import { durationText } from "../lang/index.js";
import type { TaskEvent } from "../store/index.js";

export interface SetupView {
  commands: string[];
  goal: boolean;
  /** Whether the last attach started from the cache's snapshot instead of running setup. */
  fromCache: boolean;
  /** How long setup ran, as the runner measured it, when it ran to its end. */
  durationMs?: number;
  ok?: boolean;
}

function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The setup of a task from its stored settings and its events; undefined when it has none. */
export function setupView(
  settings: Record<string, unknown>,
  events: readonly TaskEvent[],
): SetupView | undefined {
  const setup = settings.setup;
  if (!isFields(setup)) return undefined;
  const commands = Array.isArray(setup.commands)
    ? setup.commands.filter((c): c is string => typeof c === "string")
    : [];
  const view: SetupView = { commands, goal: typeof setup.goal === "string", fromCache: false };
  // Each attach starts over: what a later attach says of its setup replaces an earlier one.
  for (const event of events) {
    const data = event as unknown as Record<string, unknown>;
    if (event.type === SETUP_EVENTS.cached) {
      view.fromCache = true;
      delete view.durationMs;
      delete view.ok;
    } else if (event.type === SETUP_EVENTS.started) {
      view.fromCache = false;
    } else if (event.type === SETUP_EVENTS.ended) {
      if (typeof data.ok === "boolean") view.ok = data.ok;
      if (typeof data.durationMs === "number") view.durationMs = data.durationMs;
    }
  }
  return view;
}

/** One line for `show`: `2 commands and a goal, from the cache` or `1 command, ran in 4s`. */
export function setupText(view: SetupView): string {
  const n = view.commands.length;
  const what = [
    ...(n > 0 ? [`${n} command${n === 1 ? "" : "s"}`] : []),
    ...(view.goal ? ["a goal"] : []),
  ].join(" and ");
  if (view.fromCache) return `${what}, from the cache (setup did not run)`;
  if (view.ok === false) {
    return `${what}, failed${view.durationMs === undefined ? "" : ` after ${durationText(view.durationMs)}`}`;
  }
  if (view.durationMs !== undefined) return `${what}, ran in ${durationText(view.durationMs)}`;
  return what;
}
