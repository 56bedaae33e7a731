// The runner's phases, when a traced attach asked for them with --trace: one stderr line, which
// is sandbox text like any other, so it is parsed defensively and only its well-formed entries
// are kept. Nothing here runs unless the attach is traced.
import { cleanLine } from "../protocol/index.js";
import { TRACE_LINE, type PhaseTrace } from "../lang/index.js";
import { HOST_LIMITS } from "./limits.js";

/** How the runner labels each line it writes (src/guest/main.ts). */
const RUNNER_LABEL = "warden-guest: ";

/** The flag that asks the runner to time its phases. */
export const GUEST_TRACE_FLAG = "--trace";

/**
 * Adds to `trace` the phases of a runner's trace line, as its "guest" side; other lines, and
 * entries that are not a name with two finite times in order, are ignored.
 */
export function keepGuestPhases(line: string, trace: PhaseTrace): void {
  const prefix = RUNNER_LABEL + TRACE_LINE;
  if (!line.startsWith(prefix)) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.slice(prefix.length));
  } catch {
    return;
  }
  if (!Array.isArray(parsed)) return;
  for (const entry of parsed.slice(0, HOST_LIMITS.guestTracePhases) as unknown[]) {
    if (typeof entry !== "object" || entry === null) continue;
    const { name, start, end } = entry as Record<string, unknown>;
    if (typeof name !== "string" || typeof start !== "number" || typeof end !== "number") continue;
    if (!Number.isFinite(start) || !Number.isFinite(end) || end < start) continue;
    trace.record({
      side: "guest",
      name: cleanLine(name).slice(0, HOST_LIMITS.guestTraceNameChars),
      start,
      end,
    });
  }
}
