// Asking a running task to suspend: the same people may ask as may cancel it (downward only),
// and only a task an executor runs now can be asked, since only its executor can suspend it.
import type { StoreContext } from "./context.js";
import { CancelNotAllowedError, NotSuspendableError, relationText } from "./errors.js";
import { askerLineage } from "./lineage.js";
import { cancelDecision } from "./policy.js";
import { readSpec } from "./readTask.js";
import { deriveState } from "./state.js";
import { writeSuspendRequest, type SuspendRequest } from "./suspension.js";

export interface SuspendOutcome {
  id: string;
  /** Whether this call wrote the request (false: one was there already). */
  requested: boolean;
  request: SuspendRequest;
}

export async function suspendTask(
  ctx: StoreContext,
  id: string,
  by: string | null,
  now: boolean,
): Promise<SuspendOutcome> {
  const paths = ctx.paths(id);
  const target = await readSpec(paths);
  const decision = cancelDecision(await askerLineage(ctx, by), target);
  if (!decision.allowed) {
    throw new CancelNotAllowedError(
      `task ${by ?? ""} may not suspend ${id}: it is ${relationText(decision.edge)}`,
      { edge: decision.edge },
    );
  }
  const { state } = deriveState(paths);
  if (state !== "running") {
    throw new NotSuspendableError(`task ${id} is ${state}, so there is no run to suspend`);
  }
  const request: SuspendRequest = { by, at: ctx.now(), now };
  const requested = await writeSuspendRequest(paths, request);
  return { id, requested, request };
}
