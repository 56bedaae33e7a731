// Times and durations as a person reads them, in one form everywhere text is shown: a time in
// the local zone (`14:02:11` today, `Nov 30 14:02` on another day, `Nov 30 2025 14:02` in
// another year), a duration in its two largest units (`42s`, `1m 05s`, `2h 03m`, `7d`).
// JSON never uses these: it carries ISO 8601 times (`isoTime`) and durations in milliseconds.

const MONTHS = [
  "Jan",
  "Feb",
  "Mar",
  "Apr",
  "May",
  "Jun",
  "Jul",
  "Aug",
  "Sep",
  "Oct",
  "Nov",
  "Dec",
] as const;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/** The local time of day with seconds: `14:02:11`. */
export function clockText(ms: number): string {
  const at = new Date(ms);
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

/**
 * A moment in the local zone, as short as it can be read without doubt next to `now`: the time
 * alone on the same day, the month and day before it on another, and the year in another year.
 */
export function timeText(ms: number, now: number): string {
  const at = new Date(ms);
  const today = new Date(now);
  const sameYear = at.getFullYear() === today.getFullYear();
  if (sameYear && at.getMonth() === today.getMonth() && at.getDate() === today.getDate()) {
    return clockText(ms);
  }
  const day = `${MONTHS[at.getMonth()] ?? "?"} ${at.getDate()}`;
  const hm = `${two(at.getHours())}:${two(at.getMinutes())}`;
  return sameYear ? `${day} ${hm}` : `${day} ${at.getFullYear()} ${hm}`;
}

/** The units of a duration, largest first. */
const UNITS = [
  { ms: DAY, name: "d" },
  { ms: HOUR, name: "h" },
  { ms: MINUTE, name: "m" },
  { ms: SECOND, name: "s" },
] as const;

/**
 * A span of time in its two largest units, the second in two digits and left out when it is
 * zero: `42s`, `1m 05s`, `2h 03m`, `7d`.
 */
export function durationText(ms: number): string {
  const whole = Math.max(0, Math.floor(ms / SECOND)) * SECOND;
  if (whole < MINUTE) return `${whole / SECOND}s`;
  const i = UNITS.findIndex((unit) => whole >= unit.ms);
  const big = UNITS[i] ?? UNITS[2];
  const small = UNITS[i + 1] ?? UNITS[3];
  const rest = Math.floor((whole % big.ms) / small.ms);
  const head = `${Math.floor(whole / big.ms)}${big.name}`;
  return rest === 0 ? head : `${head} ${two(rest)}${small.name}`;
}

/** A moment as JSON carries it: ISO 8601 in UTC. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** An ISO 8601 time in UTC at the start of a line, as the proxy log writes each line. */
const ISO_PREFIX = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)(?= )/;

/**
 * A log line whose first word is an ISO 8601 time, with that time as timeText shows it; any
 * other line as it is. For text output only: the log file itself keeps ISO 8601.
 */
export function localizeLineTime(line: string, now: number): string {
  const match = ISO_PREFIX.exec(line);
  const iso = match?.[1];
  if (iso === undefined) return line;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? line : timeText(ms, now) + line.slice(iso.length);
}
