// Deadlines: every task has one (default 1 h, at most 30 days ahead), and a child's is the
// earlier of its own and its parent's, so no child outlives its parent. Pure functions.
import { cleanLine } from "../protocol/index.js";
import { BadDeadlineError, DeadlineTooFarError } from "./errors.js";
import { STORE_LIMITS } from "./limits.js";

/** A deadline as a caller gives it: a time (ms since the epoch, or a Date) or a duration ("2h"). */
export type DeadlineInput = number | Date | string;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d))+$/;
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
/** Numbers below this (September 2001) are durations given by mistake, not times. */
const EARLIEST_TIME_MS = 1e12;

/** Parses a duration such as `90s`, `1h30m` or `500ms` into milliseconds; undefined if it is not one. */
export function parseDuration(text: string): number | undefined {
  const compact = text.trim().toLowerCase();
  if (!DURATION.test(compact)) return undefined;
  let total = 0;
  for (const match of compact.matchAll(PART)) {
    const unit = match[2] as keyof typeof UNIT_MS;
    total += Number(match[1]) * UNIT_MS[unit];
  }
  return Math.round(total);
}

/** Turns a deadline as given into ms since the epoch, without applying the bounds. */
export function deadlineTime(input: DeadlineInput, now: number): number {
  if (input instanceof Date) {
    const time = input.getTime();
    if (!Number.isFinite(time)) throw new BadDeadlineError("the deadline is not a valid date");
    return time;
  }
  if (typeof input === "number") {
    if (!Number.isFinite(input)) throw new BadDeadlineError("the deadline is not a finite number");
    if (input < EARLIEST_TIME_MS) {
      throw new BadDeadlineError(
        `the deadline ${input} is a time in 1970; give a duration as a string, such as "${input}ms"`,
      );
    }
    return Math.floor(input);
  }
  const duration = parseDuration(input);
  if (duration !== undefined) return now + duration;
  if (ISO_DATE.test(input.trim())) {
    const time = Date.parse(input);
    if (Number.isFinite(time)) return time;
  }
  throw new BadDeadlineError(`"${cleanLine(input)}" is neither a duration nor a time`);
}

/**
 * The deadline a new task records: its own (or the default), bounded to 30 days ahead, and
 * never later than its parent's.
 */
export function resolveDeadline(
  input: DeadlineInput | undefined,
  now: number,
  parentDeadline: number | undefined,
): number {
  const own = input === undefined ? now + STORE_LIMITS.defaultDeadlineMs : deadlineTime(input, now);
  if (own <= now) throw new BadDeadlineError("the deadline has already passed");
  if (own - now > STORE_LIMITS.maxDeadlineMs) {
    const days = STORE_LIMITS.maxDeadlineMs / 86_400_000;
    throw new DeadlineTooFarError(`the deadline is more than ${days} days away`, {
      hint: `give a deadline within ${days} days; split longer work into several tasks`,
    });
  }
  return parentDeadline === undefined ? own : Math.min(own, parentDeadline);
}
