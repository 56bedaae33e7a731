// Live waits between trees, for the cycle check the static policy cannot make alone: a task may
// wait on an independent root, and a parent waits for its children, so two trees that wait on
// each other would wait forever. Each live edge is a file in `waits/`, flock(2)ed by its waiter
// for as long as it waits, so an edge of a waiter that died is seen as dead at once.
import { readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { acquireLock, probeLock, withBriefLock, type HeldLock } from "./attachLock.js";
import { DATA_DIRS } from "./dataDir.js";
import { WaitCycleError } from "./errors.js";
import { closesCycle } from "./policy.js";
import { isTaskId } from "./taskId.js";

const GRAPH_LOCK = ".lock";

/** A registered wait edge; release() when the wait ends. */
export class WaitEdge {
  constructor(
    private readonly path: string,
    private readonly lock: HeldLock,
  ) {}

  release(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // gc may have removed it already.
    }
    this.lock.release();
  }
}

function liveEdges(dir: string): Array<[string, string]> {
  const edges: Array<[string, string]> = [];
  for (const name of readdirSync(dir)) {
    const [from, to] = name.split(".");
    if (from === undefined || to === undefined || !isTaskId(from) || !isTaskId(to)) continue;
    const path = join(dir, name);
    if (probeLock(path) === "held") {
      edges.push([from, to]);
    } else {
      try {
        unlinkSync(path);
      } catch {
        // Another checker removed the dead edge first.
      }
    }
  }
  return edges;
}

/**
 * Records that tree `fromRoot` waits on tree `toRoot`, refusing with WAIT_CYCLE when `toRoot`
 * already waits (directly or through other trees) on `fromRoot`. Takes waits/.lock briefly.
 */
export async function registerWaitEdge(
  dataDir: string,
  by: string,
  fromRoot: string,
  toRoot: string,
): Promise<WaitEdge> {
  const dir = join(dataDir, DATA_DIRS.waits);
  return withBriefLock(join(dir, GRAPH_LOCK), async () => {
    if (closesCycle(liveEdges(dir), fromRoot, toRoot)) {
      throw new WaitCycleError(
        `task ${by} may not wait on ${toRoot}: that tree is already waiting on this one`,
      );
    }
    const path = join(dir, `${fromRoot}.${toRoot}.${randomBytes(6).toString("hex")}`);
    const edgeLock = await acquireLock(path, { waitMs: 0 });
    if (edgeLock === undefined) throw new Error(`a fresh wait edge ${path} was locked`);
    return new WaitEdge(path, edgeLock);
  });
}
