// Running a suspended task on is only for a task that is suspended: `warden resume` and the
// dashboard's resume check it here before they start the task's run (which a `start` would
// run from any state that has no end).
import { NotSuspendedError, type Tasks } from "../store/index.js";

/** The id of task `ref` when it is suspended; refused (NOT_SUSPENDED) when it is not. */
export async function suspendedTask(tasks: Tasks, ref: string): Promise<string> {
  const id = await tasks.resolve(ref);
  const { state } = await tasks.get(id);
  if (state !== "suspended") {
    throw new NotSuspendedError(`task ${id} is ${state}, so there is nothing to resume`);
  }
  return id;
}
