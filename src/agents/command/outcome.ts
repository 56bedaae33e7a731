// How a command's run ended: exit code 0 is success; a `result` text in its last line, if it
// wrote one, is its answer. A command owes warden no account of its own, so none is synthesized.
import type { AgentExit, AgentOutcome } from "../adapter.js";
import { agentEvent } from "../agentEvent.js";

export function commandOutcome(exit: AgentExit): AgentOutcome {
  const ok = exit.exitCode === 0;
  const answer = exit.lastLine?.result;
  const message =
    typeof answer === "string" && answer.trim() !== ""
      ? answer
      : ok
        ? undefined
        : `the command exited with code ${exit.exitCode}`;
  const result = agentEvent({ type: "result", ok, message });
  return exit.lastLine === undefined
    ? { result, synthesized: false }
    : { result, agentResult: exit.lastLine, synthesized: false };
}
