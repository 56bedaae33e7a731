// `warden rerun`: a new task with the spec of an old one (repository, start commit, agent and
// every setting, prompt, labels), so a failed or flaky run can be tried again as it was asked.
import type { Tasks, TaskSpec, TaskSpecInput, TaskSummary } from "../store/index.js";

/**
 * The new task's spec: the old one's, with a deadline as far from now as the old one was from
 * its creation, since the old deadline itself has usually passed. The settings were checked when
 * the old task was made and are checked again when the new one starts.
 */
export function rerunSpec(spec: TaskSpec, now: number): TaskSpecInput {
  return {
    prompt: spec.prompt,
    repo: spec.repo,
    base: spec.base,
    settings: spec.settings,
    deadline: now + Math.max(0, spec.deadline - spec.createdAt),
    labels: spec.labels,
  };
}

/** Creates the new task; it is created, not started, as by `warden create`. */
export async function rerunTask(tasks: Tasks, ref: string): Promise<TaskSummary> {
  const { spec } = await tasks.get(ref);
  return tasks.create(rerunSpec(spec, Date.now()));
}
