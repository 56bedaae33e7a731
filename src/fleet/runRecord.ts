// A task's run record (`run.<id>`): everything about a task that changes, in one KV entry that
// only compare-and-set writes. Parsed defensively: a record that does not fit is an error, never
// read as a task nobody runs.
import type { KV } from "@nats-io/kv";
import { z } from "zod";
import { memo } from "../lang/index.js";
import {
  isTerminalRecord,
  StoreCorruptError,
  type CancelRequest,
  type LockHolder,
  type TaskState,
  type TerminalRecord,
} from "../store/index.js";
import { FleetContentionError } from "./errors.js";
import { FLEET_LIMITS, FLEET_TIMING } from "./limits.js";

const leaseSchema = memo(() =>
  z.object({
    attempt: z.number().int().min(0),
    purpose: z.enum(["run", "record", "remove"]),
    pid: z.number().int(),
    host: z.string(),
    startedAt: z.number().int(),
    /** The holder's last heartbeat, ms since the epoch; the lease is free once it is too old. */
    beatAt: z.number().int(),
  }),
);

const runSchema = memo(() =>
  z.object({
    /** How many times the task was attached to run. */
    attempts: z.number().int().min(0),
    lease: leaseSchema().optional(),
    cancel: z
      .object({ by: z.string().nullable(), at: z.number().int(), target: z.string() })
      .optional(),
    /** Messages sent over the task's life (the inbox's bound counts these). */
    messages: z.number().int().min(0),
    /** Approval prompts asked over the task's life. */
    approvals: z.number().int().min(0),
    terminal: z.record(z.string(), z.unknown()).optional(),
  }),
);

export type Lease = z.infer<ReturnType<typeof leaseSchema>>;

export interface RunRecord {
  attempts: number;
  lease?: Lease;
  cancel?: CancelRequest;
  messages: number;
  approvals: number;
  terminal?: TerminalRecord;
}

export function newRunRecord(): RunRecord {
  return { attempts: 0, messages: 0, approvals: 0 };
}

export function parseRunRecord(id: string, bytes: Uint8Array): RunRecord {
  if (bytes.byteLength > FLEET_LIMITS.runEntryBytes) {
    throw new StoreCorruptError(`the run record of task ${id} is damaged: it is too large`);
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    value = undefined;
  }
  const parsed = runSchema().safeParse(value);
  if (!parsed.success) throw new StoreCorruptError(`the run record of task ${id} is damaged`);
  const { terminal, cancel, ...rest } = parsed.data;
  if (terminal !== undefined && !isTerminalRecord(terminal)) {
    throw new StoreCorruptError(`the terminal record of task ${id} is damaged`);
  }
  const run: RunRecord = rest;
  if (terminal !== undefined) run.terminal = terminal;
  if (cancel !== undefined) run.cancel = cancel;
  return run;
}

export function encode(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

/** Whether a lease is held now: its holder beat within the lease's life. */
export function leaseLive(lease: Lease | undefined, now: number, ttlMs: number): boolean {
  return lease !== undefined && now - lease.beatAt < ttlMs;
}

/** The state of a task from its run record; a lease past its life reads as nobody's. */
export function runState(run: RunRecord, now: number, ttlMs: number): TaskState {
  if (run.terminal !== undefined) return run.terminal.state;
  if (leaseLive(run.lease, now, ttlMs)) return "running";
  return run.attempts === 0 ? "created" : "interrupted";
}

export function holderOf(lease: Lease): LockHolder {
  return {
    pid: lease.pid,
    host: lease.host,
    startedAt: lease.startedAt,
    attempt: lease.attempt,
    purpose: lease.purpose,
  };
}

export async function readRun(
  kv: KV,
  id: string,
): Promise<{ run: RunRecord; revision: number } | undefined> {
  const entry = await kv.get(`run.${id}`);
  if (entry === null || entry.operation !== "PUT") return undefined;
  return { run: parseRunRecord(id, entry.value), revision: entry.revision };
}

/** What a change of the run record decides: the new record, or to leave it, with a result. */
export type RunChange<T> = { write: RunRecord; result: T } | { keep: true; result: T };

/**
 * Changes the run record by compare-and-set: reads it, asks `change` (which may throw to
 * refuse), and writes at the revision it read; on a lost race, reads again and asks again.
 */
export async function changeRun<T>(
  kv: KV,
  id: string,
  change: (run: RunRecord) => RunChange<T>,
): Promise<T> {
  for (let i = 0; i < FLEET_TIMING.casAttempts; i++) {
    const read = await readRun(kv, id);
    if (read === undefined) throw new StoreCorruptError(`task ${id} has no run record`);
    const decided = change(read.run);
    if ("keep" in decided) return decided.result;
    try {
      await kv.update(`run.${id}`, encode(decided.write), read.revision);
      return decided.result;
    } catch (error) {
      if (!isWrongRevision(error)) throw error;
    }
  }
  throw new FleetContentionError(`the run record of task ${id} kept changing under this write`);
}

/** JetStream's refusal of a write whose expected revision or sequence is not the last one. */
export function isWrongRevision(error: unknown): boolean {
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}
