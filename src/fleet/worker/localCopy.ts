// The local copy of a fleet task: what the worker's filesystem store is given so that the host's
// own code (executeTask) runs it as it runs a task of one machine. Pure.
import type { TaskSpec, TaskSpecInput } from "../../store/index.js";

/**
 * The spec input of the local copy of `spec`, whose base is in the worker's `mirror`: the same
 * prompt, base, deadline (absolute, so the copy ends when the fleet task must), hop and labels,
 * and the fleet's settings with the repository and git directory pointed at the mirror (the
 * client's paths mean nothing on this machine). The copy is a root: its parent, if any, lives in
 * the fleet, not in the worker's store.
 */
export function localSpecOf(spec: TaskSpec, mirror: string): TaskSpecInput {
  const input: TaskSpecInput = {
    prompt: spec.prompt,
    repo: mirror,
    settings: { ...spec.settings, gitDir: mirror },
    deadline: spec.deadline,
    parent: null,
    hop: spec.hop,
    labels: { ...spec.labels },
  };
  if (spec.base !== undefined) input.base = spec.base;
  return input;
}
