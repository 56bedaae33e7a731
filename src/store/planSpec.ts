// The spec a new task records, planned from the checked input and the facts about its parent:
// a pure function, so that every store builds the same spec by the same rules (hop limit,
// deadline bounded by the parent's, no child for a finished or cancelling parent).
import { ParentFinishedError, TaskCancellingError } from "./errors.js";
import { resolveDeadline } from "./deadline.js";
import { resolveHop, titleOf, type StoredSpec } from "./spec.js";
import type { CheckedInput } from "./specInput.js";

export interface SpecFacts {
  id: string;
  now: number;
  /** The parent's spec; undefined for a root. */
  parent: StoredSpec | undefined;
  /** The parent has its terminal record. */
  parentFinished: boolean;
  /** The parent has a cancel request. */
  parentCancelling: boolean;
  /** For a root made from inside a task: that task's hop, which the new root still counts. */
  currentHop: number | undefined;
  /** The task continues its parent's finished conversation (see CreateOptions.continuation). */
  continuation: boolean;
}

export function planSpec(input: CheckedInput, facts: SpecFacts): StoredSpec {
  const { parent, now } = facts;
  if (parent !== undefined) {
    if (!facts.continuation && facts.parentFinished) {
      throw new ParentFinishedError(
        `the parent task ${parent.id} has finished, so it can have no new children`,
      );
    }
    if (facts.parentCancelling) {
      throw new TaskCancellingError(
        `task ${parent.id} is being cancelled, so it can have no new children`,
      );
    }
  }
  const parentHop = parent?.hop ?? facts.currentHop;
  const continues = facts.continuation && parent !== undefined;
  const hop = continues ? parent.hop : resolveHop(input.hop, parentHop);
  const deadline = resolveDeadline(input.deadline, now, continues ? undefined : parent?.deadline);
  const spec: StoredSpec = {
    version: 1,
    id: facts.id,
    createdAt: now,
    settings: input.settings ?? {},
    deadline,
    parent: parent?.id ?? null,
    ancestors: parent === undefined ? [] : [...parent.ancestors, parent.id],
    hop,
    labels: input.labels ?? {},
    title: titleOf(input.prompt),
    promptBytes: Buffer.byteLength(input.prompt),
  };
  if (input.repo !== undefined) spec.repo = input.repo;
  if (input.base !== undefined) spec.base = input.base;
  return spec;
}
