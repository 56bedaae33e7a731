// Who is asking: the task a policy is checked for, read from its spec.
import type { StoreContext } from "./context.js";
import { noSuchTask, TaskNotFoundError } from "./errors.js";
import type { Lineage } from "./policy.js";
import { readSpec } from "./readTask.js";

/** The lineage of the asking task, or undefined outside any task. */
export async function askerLineage(
  ctx: StoreContext,
  by: string | null,
): Promise<Lineage | undefined> {
  if (by === null) return undefined;
  try {
    const spec = await readSpec(ctx.paths(by));
    return { id: spec.id, ancestors: spec.ancestors };
  } catch (error) {
    if (error instanceof TaskNotFoundError) {
      throw new TaskNotFoundError(
        noSuchTask(by, "task (the one asking, from WARDEN_TASK_ID or `by`)"),
      );
    }
    throw error;
  }
}
