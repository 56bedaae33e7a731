// Reads of the fleet's streams that make no consumer. nats-server before 2.12 may place an
// ephemeral consumer (a KV key listing, an ordered watcher, an object store read) on a node of
// the cluster that is down, and its creation then times out; reads by sequence are answered by
// the stream's leader, so they keep working with one node lost.
import { createHash } from "node:crypto";
import type { JetStreamManager, MsgRequest, StoredMsg } from "@nats-io/jetstream";
import { setTimeout as sleep } from "node:timers/promises";
import type { FleetContext } from "./context.js";
import { FLEET_TIMING } from "./limits.js";
import { StoreCorruptError } from "../store/index.js";

/** The stream message with `subject` at or after the stream sequence `seq`, or null. */
export async function nextBySubject(
  jsm: JetStreamManager,
  stream: string,
  subject: string,
  seq: number,
): Promise<StoredMsg | null> {
  // nats-server 2.9 answers `next_by_subj`; the client's type names only seq and last_by_subj.
  const query = { seq, next_by_subj: subject } as unknown as MsgRequest;
  return jsm.streams.getMessage(stream, query);
}

/** The keys of the task bucket under a filter, from the stream's subject counts. */
export async function bucketKeys(ctx: FleetContext, filter: string): Promise<string[]> {
  const prefix = `$KV.${ctx.layout.names.tasksBucket}.`;
  const info = await ctx.jsm.streams.info(`KV_${ctx.layout.names.tasksBucket}`, {
    subjects_filter: prefix + filter,
  });
  return Object.keys(info.state.subjects ?? {}).map((subject) => subject.slice(prefix.length));
}

/**
 * Whether an error is the cluster's passing trouble (a request timed out or found no server to
 * answer while leaders are elected or the client reconnects) rather than an answer.
 */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (["TimeoutError", "NoRespondersError"].includes(error.name)) return true;
  // A publish through an election says "jetstream is not enabled" with no responders as its cause.
  if (error.cause !== undefined && isTransient(error.cause)) return true;
  return /timeout|no responders|temporarily unavailable/i.test(error.message);
}

/**
 * Runs a read, again after a pause while it fails for a passing reason, until
 * FLEET_TIMING.outageMs went by: for a reader that follows a task for long, such as a watcher.
 * Only reads are retried: a write whose answer was lost may have happened.
 */
export async function outlasting<T>(read: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + FLEET_TIMING.outageMs;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!isTransient(error) || Date.now() > giveUpAt) throw error;
      await sleep(FLEET_TIMING.outagePauseMs);
    }
  }
}

const DIGEST_TYPE = "SHA-256=";

/**
 * An object of the object store, read chunk by chunk and checked against its digest; undefined
 * when it does not exist. Refused when larger than `maxBytes`, before a chunk is read.
 */
export async function readObject(
  ctx: FleetContext,
  name: string,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const info = await ctx.layout.objects.info(name);
  if (info === null || info.deleted) return undefined;
  if (info.size > maxBytes) {
    throw new StoreCorruptError(`the object ${name} has ${info.size} bytes, over ${maxBytes}`);
  }
  const stream = `OBJ_${ctx.layout.names.objectBucket}`;
  const subject = `$O.${ctx.layout.names.objectBucket}.C.${info.nuid}`;
  const chunks: Buffer[] = [];
  let bytes = 0;
  let seq = 1;
  for (let i = 0; i < info.chunks; i++) {
    const message = await nextBySubject(ctx.jsm, stream, subject, seq);
    if (message === null) break;
    seq = message.seq + 1;
    bytes += message.data.byteLength;
    if (bytes > info.size) break;
    chunks.push(Buffer.from(message.data));
  }
  const data = Buffer.concat(chunks);
  const digest = createHash("sha256").update(data).digest();
  const expected = info.digest.startsWith(DIGEST_TYPE)
    ? Buffer.from(info.digest.slice(DIGEST_TYPE.length), "base64url")
    : undefined;
  if (data.byteLength !== info.size || expected === undefined || !digest.equals(expected)) {
    throw new StoreCorruptError(`the object ${name} is not whole: its chunks do not match it`);
  }
  return data;
}
