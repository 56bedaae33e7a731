// One fleet task on a worker, from its lease to its end: the base mirrored, a local copy made in
// the worker's own filesystem store under the same id, run by the host's executeTask (so the
// sandbox, the network gate and the checks of the results are the single machine's), mirrored
// while it runs, and then its end carried to the fleet: the results uploaded before the terminal
// record, or the task handed back to the queue. The local copy and the mirror are removed after,
// whatever the end: nothing of a task outlives it on the worker's disk.
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  executeTask,
  readHostSettings,
  SILENT_REPORTER,
  taskLayout,
  type ExecuteOutcome,
  type SandboxCheckMemo,
  type WorkspaceMeter,
} from "../../host/index.js";
import { errorMessage } from "../../lang/index.js";
import { cleanLine, WardenError } from "../../protocol/index.js";
import type { Tasks, TerminalInput, TerminalRecord, TerminalState } from "../../store/index.js";
import { LeaseLostError } from "../errors.js";
import type { FleetAttachment } from "../fleetAttachment.js";
import type { FleetStore } from "../fleetStore.js";
import { makeBaseMirror } from "./baseMirror.js";
import { localSpecOf } from "./localCopy.js";
import { uploadResults } from "./resultObjects.js";
import { TaskMirror } from "./taskMirror.js";

/** How a task's turn on this worker ended. */
export type TaskEnd =
  | { kind: "finished"; state: TerminalState }
  | { kind: "handed_back"; why: "interrupted" | "suspended" }
  | { kind: "lease_lost"; error: string };

export interface WorkerTaskContext {
  fleet: FleetStore;
  local: Tasks;
  /** Where each task's mirror is made: the worker's own, emptied when the worker starts. */
  mirrorsDir: string;
  maxBaseBytes: number;
  env: Readonly<Record<string, string | undefined>>;
  /** The worker's memo of this machine's sandbox check, shared by the tasks it runs. */
  sandboxChecks: SandboxCheckMemo;
  workspaceMeter: WorkspaceMeter;
  warn(id: string, text: string): void;
}

/** Pure: the fleet's terminal input of the local copy's terminal record. */
export function fleetEndOf(record: TerminalRecord): TerminalInput {
  const input: TerminalInput = { state: record.state };
  if (record.stoppedBy !== undefined) input.stoppedBy = record.stoppedBy;
  if (record.summary !== undefined) input.summary = record.summary;
  if (record.error !== undefined) input.error = record.error;
  if (record.details !== undefined) input.details = record.details;
  return input;
}

/** The end of a task whose base or local copy could not be made: the task's fault, recorded. */
function setupFailure(id: string, error: unknown): TerminalInput {
  const text = error instanceof WardenError ? error.message : cleanLine(errorMessage(error));
  return {
    state: "failed",
    error: `the worker could not prepare task ${id}: ${text}`,
    details: { code: error instanceof WardenError ? error.code : "UNEXPECTED" },
  };
}

/**
 * Runs the leased task to its end. `stop` aborts the local run (SIGTERM past the grace): the task
 * is then handed back. A lost lease aborts it too, and nothing more is written.
 */
export async function runWorkerTask(
  ctx: WorkerTaskContext,
  attachment: FleetAttachment,
  stop: AbortSignal,
): Promise<TaskEnd> {
  const id = attachment.id;
  const dir = join(ctx.mirrorsDir, id);
  const run = new AbortController();
  const abort = (): void => {
    run.abort();
  };
  stop.addEventListener("abort", abort);
  // A stop that came before the listener: the run starts aborted and is handed back at once.
  if (stop.aborted) run.abort();
  let lost: LeaseLostError | undefined;
  try {
    let mirror: string;
    try {
      const host = readHostSettings(id, attachment.spec.settings);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true, mode: 0o700 });
      mirror = await makeBaseMirror({
        objects: ctx.fleet.objects,
        id,
        base: attachment.spec.base ?? "",
        objectFormat: host.objectFormat,
        dir,
        maxBytes: ctx.maxBaseBytes,
      });
      await ctx.local.remove(id).catch(() => undefined);
      await ctx.local.create(localSpecOf(attachment.spec, mirror), { id });
    } catch (error) {
      if (!(error instanceof WardenError)) throw error;
      const input = setupFailure(id, error);
      ctx.warn(id, input.error ?? "");
      return await finishInFleet(attachment, input);
    }
    const taskMirror = new TaskMirror(ctx.fleet, attachment, ctx.local, {
      leaseLost: (error) => {
        lost = error;
        run.abort();
      },
      warn: (text) => {
        ctx.warn(id, text);
      },
    });
    taskMirror.start();
    let outcome: ExecuteOutcome | { kind: "refused"; error: unknown };
    try {
      outcome = await executeTask(ctx.local, id, {
        env: ctx.env,
        signal: run.signal,
        reporter: SILENT_REPORTER,
        history: mirror,
        sandboxOptions: { checks: ctx.sandboxChecks, meter: ctx.workspaceMeter },
      });
    } catch (error) {
      outcome = { kind: "refused", error };
    } finally {
      await taskMirror.stop();
    }
    if (lost !== undefined) return { kind: "lease_lost", error: lost.message };
    if (outcome.kind === "refused") {
      // The local attach may have recorded an end itself (a deadline that passed meanwhile).
      const terminal = (await ctx.local.get(id)).terminal;
      if (terminal !== undefined) return await finishInFleet(attachment, fleetEndOf(terminal));
      const input = setupFailure(id, outcome.error);
      ctx.warn(id, input.error ?? "");
      return await finishInFleet(attachment, input);
    }
    if (outcome.kind === "finished") {
      const results = taskLayout(ctx.local.dataDir, id).results;
      await uploadResults(ctx.fleet.objects, id, attachment.attempt, results);
      return await finishInFleet(attachment, fleetEndOf(outcome.terminal));
    }
    await handBack(ctx.fleet, attachment);
    return { kind: "handed_back", why: outcome.kind };
  } catch (error) {
    if (error instanceof LeaseLostError) return { kind: "lease_lost", error: error.message };
    // Anything else is this worker's trouble, not the task's: another worker may do better.
    ctx.warn(id, `handing back after an error of this worker: ${errorMessage(error)}`);
    await handBack(ctx.fleet, attachment).catch(() => undefined);
    return { kind: "handed_back", why: "interrupted" };
  } finally {
    stop.removeEventListener("abort", abort);
    await ctx.local.remove(id).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

async function finishInFleet(attachment: FleetAttachment, input: TerminalInput): Promise<TaskEnd> {
  try {
    const record = await attachment.finish(input);
    return { kind: "finished", state: record.state };
  } catch (error) {
    if (error instanceof LeaseLostError) return { kind: "lease_lost", error: error.message };
    throw error;
  }
}

/**
 * Lets go of the lease, then queues the task again: in that order, since a worker that took the
 * id while the lease still stood would drop it. A worker killed between the two leaves the task
 * `interrupted` and off the queue (docs/store.md, "Workers": a limit).
 */
export async function handBack(fleet: FleetStore, attachment: FleetAttachment): Promise<void> {
  await attachment.release();
  await fleet.requeue(attachment.id);
}
