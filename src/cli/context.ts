// What every verb shares: the store, opened where the global --data-dir (or the environment)
// says, and the parsing of values the user types.
import type { Command } from "commander";
import { Tasks } from "../store/index.js";

export interface GlobalOptions {
  dataDir?: string;
}

/** Opens the store of the data directory the command line or the environment names. */
export async function openTasks(command: Command): Promise<Tasks> {
  const { dataDir } = command.optsWithGlobals<GlobalOptions>();
  return Tasks.open({ dataDir });
}

/** For repeatable options: each occurrence is added to the list. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
