// The shapes of the records the store writes and reads back (spec.json, terminal.json, the cancel
// file, approvals.json, inbox.json), checked by small type guards rather than by zod: every
// command that reads a task checks them, and loading and building zod's schemas took longer
// than all the rest a command such as `warden ls` does. A record that fails its shape is
// damaged; which field failed is not reported, so the guards say only yes or no. What a user or
// a creator types is still checked with zod (specInput.ts), whose messages say what is wrong.

/** A type guard: whether a value has the shape of T. */
export type Shape<T> = (value: unknown) => value is T;

/** A field that may be absent; `strictObject` makes its key optional. */
export interface OptionalShape<T> extends Shape<T | undefined> {
  readonly optional: true;
}

/** The type a shape checks for. */
export type ShapeOf<S> = S extends Shape<infer T> ? T : never;

type OptionalKeys<S> = {
  [K in keyof S]: S[K] extends OptionalShape<unknown> ? K : never;
}[keyof S];

/** The object a strictObject checks for: optional shapes become optional keys. */
type ObjectOf<S> = {
  [K in Exclude<keyof S, OptionalKeys<S>>]: ShapeOf<S[K]>;
} & {
  [K in OptionalKeys<S>]?: Exclude<ShapeOf<S[K]>, undefined>;
} extends infer O
  ? { [K in keyof O]: O[K] }
  : never;

/** A JSON object: not null, not an array, nothing but Object's own prototype. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

export const text: Shape<string> = (value): value is string => typeof value === "string";

export const bool: Shape<boolean> = (value): value is boolean => typeof value === "boolean";

export const anything: Shape<unknown> = (_value): _value is unknown => true;

/** A whole number a JavaScript number holds exactly, within [min, max]. */
export function int(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): Shape<number> {
  return (value): value is number =>
    Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;
}

/** Text that `pattern` matches. */
export function matching(pattern: RegExp): Shape<string> {
  return (value): value is string => typeof value === "string" && pattern.test(value);
}

/** Exactly `expected`. */
export function literal<const T extends string | number>(expected: T): Shape<T> {
  return (value): value is T => value === expected;
}

/** One of `values`. */
export function oneOf<const T extends readonly string[]>(values: T): Shape<T[number]> {
  return (value): value is T[number] => typeof value === "string" && values.includes(value);
}

export function nullable<T>(shape: Shape<T>): Shape<T | null> {
  return (value): value is T | null => value === null || shape(value);
}

export function optional<T>(shape: Shape<T>): OptionalShape<T> {
  const check = (value: unknown): value is T | undefined => value === undefined || shape(value);
  return Object.assign(check, { optional: true as const });
}

/** An array of at most `max` elements, each of `shape`. */
export function arrayOf<T>(shape: Shape<T>, max: number): Shape<T[]> {
  return (value): value is T[] =>
    Array.isArray(value) && value.length <= max && value.every((element) => shape(element));
}

/** A JSON object whose every value is of `shape`. */
export function recordOf<T>(shape: Shape<T>): Shape<Record<string, T>> {
  return (value): value is Record<string, T> =>
    isPlainObject(value) && Object.values(value).every((field) => shape(field));
}

/**
 * A JSON object with the fields of `shape` and no others: a field that is not optional must be
 * there, and every field there must be of its shape.
 */
export function strictObject<S extends Record<string, Shape<unknown>>>(
  shape: S,
): Shape<ObjectOf<S>> {
  const keys = Object.keys(shape);
  return (value): value is ObjectOf<S> => {
    if (!isPlainObject(value)) return false;
    if (Object.keys(value).some((key) => !Object.hasOwn(shape, key))) return false;
    return keys.every((key) => {
      const check = shape[key] as Shape<unknown>;
      return Object.hasOwn(value, key) ? check(value[key]) : "optional" in check;
    });
  };
}
