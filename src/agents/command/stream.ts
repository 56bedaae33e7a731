// A command's stdout has no format warden knows: it yields no events.
import type { StreamReader } from "../agentEvent.js";

export function silentReader(): StreamReader {
  return { line: () => [], end: () => [] };
}
