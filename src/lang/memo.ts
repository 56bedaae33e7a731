// A value that is costly to make and may not be needed at all (a schema, a lookup table) made
// on its first use instead of when its module loads: a command that never uses it never pays
// for it. The value must be pure (the same whenever it is made) and never changed by its users,
// so holding it is not state: it is the value the module would have held from the start.

/** Returns a function that makes `make()`'s value on its first call and returns it ever after. */
export function memo<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => {
    made ??= { value: make() };
    return made.value;
  };
}
