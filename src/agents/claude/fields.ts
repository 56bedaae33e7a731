// Reading fields of Claude Code's JSON lines: a field of the wrong type reads as absent.
import { isObject, type JsonObject } from "../jsonLines.js";

export function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A finite number of at least zero (a count or an amount), or absent. */
export function amount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A whole count, or absent. */
export function count(value: unknown): number | undefined {
  const n = amount(value);
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}

export function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}
