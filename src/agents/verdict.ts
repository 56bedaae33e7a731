// How every adapter judges the end of a run: a run is ok only when the agent said so and its
// process exited 0, and a run whose agent wrote no account of its own gets one synthesized by
// the adapter, shaped like the agent's own line and marked as warden's.
import { exitText } from "../lang/index.js";
import type { AgentResultEvent } from "./adapter.js";

/**
 * The mark on a synthesized result line. Its name is on the wire (result.json's agentResult,
 * read by the host and by scripts), so it keeps the words it was first written with.
 */
export const SYNTHESIZED_MARK = { made_up_by: "warden" } as const;

/** Whether an exit code says a stop signal ended the process (warden's or anyone's). */
export function stoppedBySignal(exitCode: number): boolean {
  return exitCode === 130 || exitCode === 137 || exitCode === 143;
}

/**
 * The agent's result, unless it says ok while the process exited otherwise than 0: then it is
 * not ok, and its message says what happened after it (`ended`) and how the process exited.
 */
export function okOnlyOnExitZero(
  result: AgentResultEvent,
  exitCode: number,
  ended: string,
): AgentResultEvent {
  if (!result.ok || exitCode === 0) return result;
  return { ...result, ok: false, message: `${ended} (${exitText(exitCode)})` };
}
