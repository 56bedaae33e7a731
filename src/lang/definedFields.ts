// An object without the fields whose value is undefined: what an adapter builds from optional
// inputs (an event from what a stream said, an agent's task from the settings) leaves out what
// was not said, rather than holding it as undefined.

export function definedFields<T extends object>(fields: T): T {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields) as [string, unknown][]) {
    if (value !== undefined) kept[key] = value;
  }
  return kept as T;
}
