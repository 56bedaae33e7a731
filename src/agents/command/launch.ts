// How warden starts the `command` agent: the argv from the settings, the prompt on stdin.
import { BadSettingsError } from "../../protocol/index.js";
import type { AgentLaunch, AgentTask } from "../adapter.js";

export function commandLaunch(task: AgentTask): AgentLaunch {
  const [program, ...args] = task.settings.command ?? [];
  if (program === undefined) {
    // checkSettings already refuses this; the runner must still never start an empty argv.
    throw new BadSettingsError("the command agent needs a command", {
      hint: 'set "command" in task.json to the program and its arguments',
    });
  }
  return { argv: [program, ...args], env: {}, stdin: task.prompt };
}
