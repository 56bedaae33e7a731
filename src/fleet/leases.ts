// Taking a task's lease, and recording the end of a task nobody runs: the fleet's attach.
import {
  AlreadyAttachedError,
  applyAnswer,
  DeadlinePassedError,
  hasFinished,
  settlementOf,
  STORE_EVENTS,
  TaskFinishedError,
  type ApprovalRequest,
  type InboxMessage,
  type Settlement,
  type StoredSpec,
  type TaskSpec,
} from "../store/index.js";
import type { FleetContext } from "./context.js";
import {
  ENTRY_KINDS,
  fullSpecOf,
  readApprovalList,
  readMessageList,
  runOf,
  runningChildren,
  updateEntry,
} from "./entries.js";
import { EventAppender } from "./eventStream.js";
import { FleetAttachment } from "./fleetAttachment.js";
import { KEYS } from "./layout.js";
import { changeRun, leaseLive, readRun, type Lease } from "./runRecord.js";

/** Whether a take may refuse (an attach) or only leaves a task alone (a canceller, a waiter). */
export type Settle = "attach" | "quiet";

/**
 * Takes the lease by compare-and-set, or refuses: finished, held by a live holder, or due to
 * end (then, as the filesystem store does, the end is recorded and the attach refused).
 */
export async function takeLease(
  ctx: FleetContext,
  spec: TaskSpec,
  purpose: Lease["purpose"],
  settle: Settle,
): Promise<{ lease: Lease } | undefined> {
  const id = spec.id;
  const parentEnded = await parentFinished(ctx, spec);
  const outcome = await changeRun<{ lease: Lease; due: Settlement | undefined } | undefined>(
    ctx.layout.kv,
    id,
    (run) => {
      const now = ctx.now();
      if (run.terminal !== undefined) {
        if (settle === "quiet") return { keep: true, result: undefined };
        throw new TaskFinishedError(hasFinished(id, run.terminal, "it cannot run again"), {
          terminal: run.terminal,
        });
      }
      if (leaseLive(run.lease, now, ctx.leaseTtlMs)) {
        if (settle === "quiet") return { keep: true, result: undefined };
        const holder =
          run.lease === undefined
            ? "running"
            : `running (attempt ${run.lease.attempt} on ${run.lease.host}, pid ${run.lease.pid})`;
        throw new AlreadyAttachedError(`task ${id} is ${holder}`);
      }
      const due = settlementOf({
        cancelled: run.cancel !== undefined,
        deadline: spec.deadline,
        now,
        parentFinished: parentEnded,
      });
      if (purpose === "run" && due === undefined) {
        const lease: Lease = {
          attempt: run.attempts + 1,
          purpose,
          pid: process.pid,
          host: ctx.host,
          startedAt: now,
          beatAt: now,
        };
        return { write: { ...run, attempts: lease.attempt, lease }, result: { lease, due } };
      }
      if (due === undefined) return { keep: true, result: undefined };
      const lease: Lease = {
        attempt: run.attempts,
        purpose: "record",
        pid: process.pid,
        host: ctx.host,
        startedAt: now,
        beatAt: now,
      };
      return { write: { ...run, lease }, result: { lease, due } };
    },
  );
  if (outcome === undefined) return undefined;
  if (outcome.due === undefined) return { lease: outcome.lease };
  const record = await (
    await beginAttachment(ctx, spec, { lease: outcome.lease })
  ).finish(outcome.due.input);
  if (settle === "quiet") return undefined;
  if (outcome.due.kind === "deadline") {
    throw new DeadlinePassedError(
      `task ${id} is past its deadline, so it was recorded as failed instead of run again`,
      { terminal: record },
    );
  }
  throw new TaskFinishedError(hasFinished(id, record, "it was not run"), { terminal: record });
}

/** Opens the event appender for a taken lease; to run: requeues taken messages, denies prompts. */
export async function beginAttachment(
  ctx: FleetContext,
  spec: TaskSpec,
  taken: { lease: Lease },
): Promise<FleetAttachment> {
  const { names } = ctx.layout;
  const events = await EventAppender.open(
    ctx.js,
    ctx.jsm,
    names.eventsStream,
    names.eventsSubject(spec.id),
  );
  const attachment = new FleetAttachment(ctx, spec, taken.lease, events);
  if (taken.lease.purpose === "run") {
    for (const m of await readMessageList(ctx, spec.id)) {
      if (m.state !== "in_flight") continue;
      await updateEntry(
        ctx,
        ENTRY_KINDS.message,
        KEYS.message(spec.id, m.n),
        (now: InboxMessage): InboxMessage | undefined => {
          if (now.state !== "in_flight") return undefined;
          const back: InboxMessage = { ...now, state: "pending" };
          delete back.takenAt;
          return back;
        },
      );
    }
    for (const r of await readApprovalList(ctx, spec.id)) {
      if (r.state !== "pending") continue;
      await updateEntry(
        ctx,
        ENTRY_KINDS.approval,
        KEYS.approval(spec.id, r.n),
        (now: ApprovalRequest) =>
          now.state === "pending"
            ? applyAnswer(
                spec.id,
                [now],
                now.n,
                { decision: "deny", answeredBy: "ended", reason: "the run that asked is gone" },
                ctx.now(),
                undefined,
              )
            : undefined,
      );
    }
    await events.append(
      STORE_EVENTS.attached,
      { attempt: taken.lease.attempt, pid: process.pid, host: ctx.host },
      ctx.now(),
    );
  }
  return attachment;
}

/** Records the end of a task nobody runs that must end; says whether it did. */
export async function settleIfIdle(ctx: FleetContext, id: string): Promise<boolean> {
  const spec = await fullSpecOf(ctx, id);
  if ((await runningChildren(ctx, id)).length > 0) return false;
  try {
    await takeLease(ctx, spec, "record", "quiet");
  } catch (error) {
    if (error instanceof AlreadyAttachedError) return false;
    throw error;
  }
  return (await runOf(ctx, id)).terminal !== undefined;
}

export async function parentFinished(ctx: FleetContext, spec: StoredSpec): Promise<boolean> {
  if (spec.parent === null) return false;
  const parent = (await readRun(ctx.layout.kv, spec.parent))?.run;
  if (parent === undefined) return true;
  return parent.terminal !== undefined && parent.terminal.at >= spec.createdAt;
}
