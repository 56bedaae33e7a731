// Cancel in the fleet: the request goes down the tree into each unfinished run record, then the
// tasks nobody runs are recorded cancelled, deepest first, so a parent's end never precedes its
// children's.
import type { CancelRequest } from "../store/index.js";
import type { FleetContext } from "./context.js";
import { childrenOf, runOf } from "./entries.js";
import { settleIfIdle } from "./leases.js";
import { changeRun } from "./runRecord.js";

/** Marks `id` and its unfinished descendants with `request`; records those nobody runs. */
export async function cancelTree(
  ctx: FleetContext,
  id: string,
  request: CancelRequest,
): Promise<{ marked: string[]; recorded: string[] }> {
  const visited: string[] = [];
  const marked: string[] = [];
  const queue = [id];
  while (queue.length > 0) {
    const next = queue.shift() ?? "";
    if ((await runOf(ctx, next)).terminal === undefined) {
      visited.push(next);
      if (await markCancel(ctx, next, request)) marked.push(next);
    }
    queue.push(...(await childrenOf(ctx, next)));
  }
  const recorded: string[] = [];
  for (const next of visited.reverse()) {
    if (await settleIfIdle(ctx, next)) recorded.push(next);
  }
  return { marked, recorded };
}

/** Writes the cancel request into an unfinished task's run record; says whether it did. */
export async function markCancel(
  ctx: FleetContext,
  id: string,
  request: CancelRequest,
): Promise<boolean> {
  return changeRun(ctx.layout.kv, id, (run) =>
    run.cancel !== undefined || run.terminal !== undefined
      ? { keep: true, result: false }
      : { write: { ...run, cancel: request }, result: true },
  );
}
