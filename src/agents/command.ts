// The `command` agent: any program. Its argv comes from the settings and the prompt arrives on
// its stdin, so a shell script, a test double or a wrapper around a real agent all fit. Its
// output is its own business: warden reads no events from it and judges it by its exit code.
import { BadSettingsError } from "../protocol/index.js";
import type { AgentAdapter, AgentExit, AgentLaunch, AgentOutcome, AgentTask } from "./adapter.js";
import type { AgentEvent, StreamReader } from "./agentEvent.js";

/** A command's stdout has no format warden knows: it yields no events. */
const silentReader = (): StreamReader => ({
  line: (): AgentEvent[] => [],
  end: (): AgentEvent[] => [],
});

/** Exit code 0 is success; a `result` text in its last line, if it wrote one, is its answer. */
function commandOutcome(exit: AgentExit): AgentOutcome {
  const ok = exit.exitCode === 0;
  const answer = exit.lastLine?.result;
  const message =
    typeof answer === "string" && answer.trim() !== ""
      ? answer
      : ok
        ? undefined
        : `the command exited with code ${exit.exitCode}`;
  const result =
    message === undefined
      ? { type: "result" as const, ok }
      : { type: "result" as const, ok, message };
  return exit.lastLine === undefined
    ? { result, madeUp: false }
    : { result, agentResult: exit.lastLine, madeUp: false };
}

export const commandAgent: AgentAdapter = {
  name: "command",
  launch(task: AgentTask): AgentLaunch {
    const [program, ...args] = task.settings.command ?? [];
    if (program === undefined) {
      // checkSettings already refuses this; the runner must still never start an empty argv.
      throw new BadSettingsError("the command agent needs a command", {
        hint: 'set "command" in task.json to the program and its arguments',
      });
    }
    return { argv: [program, ...args], env: {}, stdin: task.prompt };
  },
  readStream: silentReader,
  outcome: commandOutcome,
};
