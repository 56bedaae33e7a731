// The one way to start a run from a task's stored checkpoint: an attach. Every attach of a task
// that has a kept checkpoint starts from it (its workspace restored, its agent's session resumed
// and told it was interrupted); this names that for callers that resume a task on purpose
// (after a suspension, at a usage limit's reset), and says from which checkpoint it would start.
import type { Tasks } from "../../store/index.js";
import { executeTask, type ExecuteOptions, type ExecuteOutcome } from "../executeTask.js";
import { taskLayout } from "../taskLayout.js";
import { readCheckpoint } from "./checkpointFiles.js";

/**
 * Attaches task `ref` and runs it from its last checkpoint (from its spec when it has none),
 * as `executeTask` does; resolves with the outcome and the checkpoint it started from (0: none).
 */
export async function resumeFromCheckpoint(
  tasks: Tasks,
  ref: string,
  options: ExecuteOptions = {},
): Promise<ExecuteOutcome & { checkpoint: number }> {
  const id = await tasks.resolve(ref);
  const kept = await readCheckpoint(taskLayout(tasks.dataDir, id).dir);
  const outcome = await executeTask(tasks, id, options);
  return { ...outcome, checkpoint: kept?.manifest.seq ?? 0 };
}
