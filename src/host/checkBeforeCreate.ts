// What `run`, `create` and `rerun` check before they write a task, so that a task that cannot run here
// is refused instead of left behind as `created`: what every attach checks of the host (the
// sandbox, the runner, the --env values, the API key, the agent's program), and that a command
// agent's relative program, and the directory the agent runs in, are in the commit the task
// starts from.
import type { SandboxBackendOptions } from "../sandbox/index.js";
import {
  checkCommittedDirectory,
  checkCommittedProgram,
  committedProgram,
  relativeProgram,
} from "./committedTree.js";
import { readHostSettings } from "./hostSettings.js";
import { checkLaunch } from "./preflight.js";
import type { TaskStart } from "./resolveStart.js";

export interface CreateChecks {
  /** The environment the task will run in: where --env values and the API key are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly sandboxOptions?: SandboxBackendOptions;
}

/** Throws the first check's refusal; `stored` is the settings as the spec will hold them. */
export async function checkBeforeCreate(
  stored: Record<string, unknown>,
  start: Pick<TaskStart, "repo" | "base">,
  checks: CreateChecks,
): Promise<void> {
  const host = readHostSettings("(new)", stored);
  await checkLaunch(host, checks.env, { sandboxOptions: checks.sandboxOptions });
  const workdir = host.guest.workdir;
  if (workdir !== undefined) await checkCommittedDirectory(start.repo, start.base, workdir);
  const program = relativeProgram(host.guest.command);
  if (program !== undefined) {
    checkCommittedProgram(await committedProgram(start.repo, start.base, program), start.base);
  }
}
