// Times and durations in text output: local and humane, one form everywhere.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  clockText,
  durationText,
  isoTime,
  localizeLineTime,
  timeText,
} from "../../src/lang/index.js";

/** A local moment: the test reads in the machine's own zone, as the CLI does. */
function local(year: number, month: number, day: number, h: number, m: number, s = 0): number {
  return new Date(year, month - 1, day, h, m, s).getTime();
}

test("a duration shows its two largest units, the second in two digits, and no zero tail", () => {
  assert.equal(durationText(0), "0s");
  assert.equal(durationText(42_900), "42s");
  assert.equal(durationText(65_000), "1m 05s");
  assert.equal(durationText(60_000), "1m");
  assert.equal(durationText(7_380_000), "2h 03m");
  assert.equal(durationText(3 * 86_400_000 + 4 * 3_600_000 + 59_000), "3d 04h");
  assert.equal(durationText(7 * 86_400_000), "7d");
  assert.equal(durationText(-5_000), "0s", "a clock that went back shows no negative span");
});

test("a time today shows the clock alone, another day its month and day, another year the year", () => {
  const now = local(2026, 12, 1, 15, 0);
  assert.equal(timeText(local(2026, 12, 1, 14, 2, 11), now), "14:02:11");
  assert.equal(timeText(local(2026, 11, 30, 14, 2, 11), now), "Nov 30 14:02");
  assert.equal(timeText(local(2026, 12, 2, 9, 5), now), "Dec 2 09:05", "a deadline tomorrow");
  assert.equal(timeText(local(2025, 11, 30, 14, 2), now), "Nov 30 2025 14:02");
  assert.equal(clockText(local(2026, 1, 2, 3, 4, 5)), "03:04:05");
});

test("JSON's times are ISO 8601 in UTC, and a log line's leading ISO time reads as local text", () => {
  assert.equal(isoTime(0), "1970-01-01T00:00:00.000Z");
  const at = local(2026, 12, 1, 14, 2, 11);
  const now = local(2026, 12, 1, 15, 0);
  const iso = new Date(at).toISOString();
  assert.equal(
    localizeLineTime(`${iso} CONNECT a.example:443 allowed`, now),
    "14:02:11 CONNECT a.example:443 allowed",
  );
  assert.equal(localizeLineTime("no time here", now), "no time here");
  assert.equal(localizeLineTime(iso, now), iso, "a time alone is no line's first word");
});
