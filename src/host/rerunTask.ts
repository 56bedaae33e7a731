// `warden rerun`: a new task with the spec of an old one (repository, start commit, agent and
// every setting, prompt, labels), so a failed or flaky run can be tried again as it was asked.
import type { Tasks, TaskSpec, TaskSpecInput, TaskSummary } from "../store/index.js";
import { checkBeforeCreate, type CreateChecks } from "./checkBeforeCreate.js";
import { NotAHostTaskError, noHostSettings } from "./errors.js";

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

/**
 * Creates the new task; it is created, not started, as by `warden create`. With `checks`, what
 * running it needs of this host is checked first, as `run` checks it, and nothing is written
 * when a check fails.
 */
export async function rerunTask(
  tasks: Tasks,
  ref: string,
  checks?: CreateChecks,
): Promise<TaskSummary> {
  const { spec } = await tasks.get(ref);
  const { repo, base } = spec;
  if (repo === undefined || base === undefined) {
    throw new NotAHostTaskError(
      noHostSettings(spec.id, "its spec names no repository or start commit"),
    );
  }
  const beforeWrite =
    checks === undefined
      ? undefined
      : () => checkBeforeCreate(spec.settings, { repo, base }, checks);
  return tasks.create(rerunSpec(spec, Date.now()), { beforeWrite });
}
