// Wait edges between trees in the fleet: one KV entry replaced by compare-and-set, so that two
// waits can never both close a cycle. An edge lasts until its wait ends, and never past the
// wait's timeout or the target's deadline, so a waiter that died leaves no edge for long.
import { randomBytes } from "node:crypto";
import { TASK_ID } from "../protocol/index.js";
import {
  arrayOf,
  closesCycle,
  int,
  matching,
  strictObject,
  text,
  WaitCycleError,
} from "../store/index.js";

import type { FleetContext } from "./context.js";
import { parseEntry, updateEntry, type EntryKind } from "./entries.js";
import { KEYS } from "./layout.js";
import { FLEET_LIMITS, FLEET_TIMING } from "./limits.js";
import { encode, isWrongRevision } from "./runRecord.js";

/** A wait edge between two trees, kept until the wait ends or, at the latest, `until`. */
export interface WaitEdgeEntry {
  from: string;
  to: string;
  until: number;
  token: string;
}

/** The `waits` entry; its byte bound is what bounds how many edges it holds. */
const WAITS: EntryKind<WaitEdgeEntry[]> = {
  what: "list of wait edges",
  shape: arrayOf(
    strictObject({ from: matching(TASK_ID), to: matching(TASK_ID), until: int(), token: text }),
    FLEET_LIMITS.entryBytes,
  ),
  maxBytes: FLEET_LIMITS.entryBytes,
};

/** Adds a wait edge between trees by compare-and-set on `waits`, refusing one that cycles. */
export async function registerWaitEdge(
  ctx: FleetContext,
  from: string,
  to: string,
  until: number,
): Promise<WaitEdgeEntry> {
  const kv = ctx.layout.kv;
  const edge: WaitEdgeEntry = { from, to, until, token: randomBytes(8).toString("hex") };
  for (let i = 0; i < FLEET_TIMING.casAttempts; i++) {
    const entry = await kv.get(KEYS.waits);
    const now = ctx.now();
    const edges = (
      entry?.operation === "PUT" ? parseEntry(WAITS, KEYS.waits, entry.value) : []
    ).filter((e) => e.until > now);
    if (
      closesCycle(
        edges.map((e) => [e.from, e.to] as const),
        from,
        to,
      )
    ) {
      throw new WaitCycleError(
        `waiting on ${to} from the tree of ${from} would close a cycle of waits`,
      );
    }
    try {
      if (entry === null) await kv.create(KEYS.waits, encode([...edges, edge]));
      else await kv.update(KEYS.waits, encode([...edges, edge]), entry.revision);
      return edge;
    } catch (error) {
      if (!isWrongRevision(error)) throw error;
    }
  }
  throw new WaitCycleError("the wait edges kept changing under this wait");
}

export async function dropWaitEdge(ctx: FleetContext, edge: WaitEdgeEntry): Promise<void> {
  await updateEntry(ctx, WAITS, KEYS.waits, (edges: WaitEdgeEntry[]) =>
    edges.filter((e) => e.token !== edge.token),
  );
}
