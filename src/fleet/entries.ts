// The task's keyed entries beside its run record: children, inbox messages, approval prompts.
// Every entry is read through its shape (the filesystem store's own record guards) and a size
// bound: anything else in the bucket, torn or planted, is STORE_CORRUPT, never a task's record.
import {
  isApprovalRequest,
  isInboxMessage,
  isStoredSpec,
  isTaskId,
  noSuchTask,
  STORE_LIMITS,
  StoreCorruptError,
  TaskNotFoundError,
  type TaskSpec,
  type ApprovalRequest,
  type InboxMessage,
  type Shape,
  type StoredSpec,
} from "../store/index.js";

import type { FleetContext } from "./context.js";
import { FleetContentionError } from "./errors.js";
import { KEYS } from "./layout.js";
import { bucketKeys, readObject } from "./streamReads.js";
import { FLEET_LIMITS, FLEET_TIMING } from "./limits.js";
import { encode, isWrongRevision, leaseLive, readRun, type RunRecord } from "./runRecord.js";

/** The keys under a filter, read whole. */
export async function keysOf(ctx: FleetContext, filter: string): Promise<string[]> {
  return bucketKeys(ctx, filter);
}

/** What an entry must be to be read: its shape, and how large its bytes may be. */
export interface EntryKind<T> {
  what: string;
  shape: Shape<T>;
  maxBytes: number;
}

export const ENTRY_KINDS = {
  spec: { what: "task spec", shape: isStoredSpec, maxBytes: FLEET_LIMITS.specEntryBytes },
  message: { what: "inbox message", shape: isInboxMessage, maxBytes: FLEET_LIMITS.entryBytes },
  approval: {
    what: "approval prompt",
    shape: isApprovalRequest,
    maxBytes: FLEET_LIMITS.entryBytes,
  },
} as const;

/** An entry's bytes as the kind it must be; anything else is STORE_CORRUPT. */
export function parseEntry<T>(kind: EntryKind<T>, key: string, bytes: Uint8Array): T {
  const damaged = (why: string) =>
    new StoreCorruptError(`the entry ${key} is damaged: ${why}, not a ${kind.what}`);
  if (bytes.byteLength > kind.maxBytes) {
    throw damaged(`it has ${bytes.byteLength} bytes, over ${kind.maxBytes}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw damaged("it is not JSON");
  }
  if (!kind.shape(value)) throw damaged("its fields are wrong");
  return value;
}

async function readEntry<T>(
  ctx: FleetContext,
  kind: EntryKind<T>,
  key: string,
): Promise<T | undefined> {
  const entry = await ctx.layout.kv.get(key);
  if (entry === null || entry.operation !== "PUT") return undefined;
  return parseEntry(kind, key, entry.value);
}

/** The entries `<kind>.<id>.<n>`, in the order of n. */
async function numbered<T>(ctx: FleetContext, kind: EntryKind<T>, filter: string): Promise<T[]> {
  const keys = await keysOf(ctx, filter);
  const byN = keys
    .map((key) => ({ key, n: Number(key.slice(key.lastIndexOf(".") + 1)) }))
    .filter((k) => Number.isSafeInteger(k.n))
    .sort((a, b) => a.n - b.n);
  const out: T[] = [];
  for (const { key } of byN) {
    const value = await readEntry(ctx, kind, key);
    if (value !== undefined) out.push(value);
  }
  return out;
}

export async function readMessageList(ctx: FleetContext, id: string): Promise<InboxMessage[]> {
  return numbered(ctx, ENTRY_KINDS.message, KEYS.messages(id));
}

export async function readApprovalList(ctx: FleetContext, id: string): Promise<ApprovalRequest[]> {
  return numbered(ctx, ENTRY_KINDS.approval, KEYS.approvals(id));
}

export async function childrenOf(ctx: FleetContext, id: string): Promise<string[]> {
  const prefix = `child.${id}.`;
  return (await keysOf(ctx, KEYS.children(id)))
    .map((key) => key.slice(prefix.length))
    .filter(isTaskId)
    .sort();
}

export async function readSpecEntry(
  ctx: FleetContext,
  id: string,
): Promise<StoredSpec | undefined> {
  const spec = await readEntry(ctx, ENTRY_KINDS.spec, KEYS.spec(id));
  if (spec !== undefined && spec.id !== id) {
    throw new StoreCorruptError(
      `the entry ${KEYS.spec(id)} is damaged: it is the spec of ${spec.id}`,
    );
  }
  return spec;
}

/** The children of a task whose lease is live now. */
export async function runningChildren(ctx: FleetContext, id: string): Promise<string[]> {
  const running: string[] = [];
  for (const child of await childrenOf(ctx, id)) {
    const read = await readRun(ctx.layout.kv, child);
    if (read === undefined || read.run.terminal !== undefined) continue;
    if (leaseLive(read.run.lease, ctx.now(), ctx.leaseTtlMs)) running.push(child);
  }
  return running;
}

/**
 * Changes one JSON entry by compare-and-set; `change` returns the new value or undefined to
 * leave it. Returns the value written, or undefined when the entry is missing or was left.
 */
export async function updateEntry<T>(
  ctx: FleetContext,
  kind: EntryKind<T>,
  key: string,
  change: (value: T) => T | undefined,
): Promise<T | undefined> {
  for (let i = 0; i < FLEET_TIMING.casAttempts; i++) {
    const entry = await ctx.layout.kv.get(key);
    if (entry === null || entry.operation !== "PUT") return undefined;
    const next = change(parseEntry(kind, key, entry.value));
    if (next === undefined) return undefined;
    try {
      await ctx.layout.kv.update(key, encode(next), entry.revision);
      return next;
    } catch (error) {
      if (!isWrongRevision(error)) throw error;
    }
  }
  throw new FleetContentionError(`the entry ${key} kept changing under this write`);
}

export async function allIds(ctx: FleetContext): Promise<string[]> {
  return (await keysOf(ctx, "spec.*"))
    .map((key) => key.slice("spec.".length))
    .filter(isTaskId)
    .sort();
}

export async function specOf(ctx: FleetContext, id: string): Promise<StoredSpec> {
  const spec = await readSpecEntry(ctx, id);
  if (spec === undefined) throw new TaskNotFoundError(noSuchTask(id));
  return spec;
}

export async function fullSpecOf(ctx: FleetContext, id: string): Promise<TaskSpec> {
  const spec = await specOf(ctx, id);
  const prompt = await readObject(ctx, promptObject(id), STORE_LIMITS.promptBytes);
  if (prompt === undefined) throw new TaskNotFoundError(noSuchTask(id));
  return { ...spec, prompt: prompt.toString("utf8") };
}

export async function runOf(ctx: FleetContext, id: string): Promise<RunRecord> {
  const read = await readRun(ctx.layout.kv, id);
  if (read === undefined) throw new TaskNotFoundError(noSuchTask(id));
  return read.run;
}

export function promptObject(id: string): string {
  return `prompt/${id}`;
}
