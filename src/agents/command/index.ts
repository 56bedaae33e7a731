// The `command` agent: any program. Its argv comes from the settings and the prompt arrives on
// its stdin, so a shell script, a test double or a wrapper around a real agent all fit. Its
// output is its own business: warden reads no events from it and judges it by its exit code,
// and shows its lines to a watcher as they come.
import type { AgentAdapter } from "../adapter.js";
import { commandLaunch } from "./launch.js";
import { commandOutcome } from "./outcome.js";
import { silentReader } from "./stream.js";

export const commandAgent: AgentAdapter = {
  name: "command",
  launch: commandLaunch,
  readStream: silentReader,
  outcome: commandOutcome,
  liveOutput: true,
};
