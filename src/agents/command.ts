// The `command` agent: any program. Its argv comes from the settings and the prompt arrives on
// its stdin, so a shell script, a test double or a wrapper around a real agent all fit.
import { BadSettingsError } from "../protocol/index.js";
import type { AgentAdapter, AgentLaunch, AgentTask } from "./adapter.js";

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
};
