// Reading fields of Claude Code's JSON lines. Every line came from the sandbox, so nothing is
// assumed: a field of the wrong type reads as absent.

export type JsonObject = Readonly<Record<string, unknown>>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

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
