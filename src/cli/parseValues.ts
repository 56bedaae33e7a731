// Values typed on the command line: durations, counts, sizes. Pure; each refusal is a UsageError
// that says what was expected.
import { cleanLine } from "../protocol/index.js";
import { parseDuration } from "../store/index.js";
import { UsageError } from "./cliErrors.js";

/** Seconds: a whole number (`600`) or a duration (`10m`, `1h30m`). */
export function parseSeconds(text: string, option: string): number {
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const ms = parseDuration(text);
  if (ms === undefined || ms % 1000 !== 0) {
    throw new UsageError(`${option} ${cleanLine(text)} is not a number of seconds or a duration`, {
      hint: `write ${option} 600, ${option} 10m or ${option} 1h30m`,
    });
  }
  return ms / 1000;
}

/** Milliseconds from a duration (`30s`, `2h`) or a whole number of seconds. */
export function parseMs(text: string, option: string): number {
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new UsageError(`${option} ${cleanLine(text)} is not a duration`, {
      hint: `write ${option} 30s, ${option} 10m or ${option} 2h`,
    });
  }
  return ms;
}

/** A whole number of at least 0. */
export function parseCount(text: string, option: string): number {
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(Number(text.trim()))) {
    throw new UsageError(`${option} ${cleanLine(text)} is not a whole number`, {
      hint: `write ${option} with digits only, such as ${option} 20`,
    });
  }
  return Number(text.trim());
}

/** A finite number of at least 0, such as a budget in dollars. */
export function parseAmount(text: string, option: string): number {
  const value = Number(text.trim());
  if (text.trim() === "" || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`${option} ${cleanLine(text)} is not a number of at least 0`, {
      hint: `write ${option} 2.50`,
    });
  }
  return value;
}

const UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** A size in bytes: `512M`, `2G`, `1048576`. */
export function parseBytes(text: string, option: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i.exec(text.trim());
  const unit = UNITS[(match?.[2] ?? "").toLowerCase()];
  if (match === null || unit === undefined) {
    throw new UsageError(`${option} ${cleanLine(text)} is not a size`, {
      hint: `write ${option} 512M or ${option} 2G`,
    });
  }
  return Math.floor(Number(match[1]) * unit);
}

/** A whole number of at least 1, such as how many rows to show. */
export function parsePositive(text: string, option: string): number {
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : 0;
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${option} ${cleanLine(text)} is not a whole number of at least 1`, {
      hint: `write ${option} with digits only, such as ${option} 20`,
    });
  }
  return value;
}
