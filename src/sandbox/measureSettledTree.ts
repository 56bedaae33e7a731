// The workspace's size measured in this process, for the look at the bounds after a sandbox has
// ended: nothing of it runs any more, so the tree cannot change while it is read, and the host
// walks it once, for bytes and entries together, where du would take two processes and two
// walks (about 150 ms for a checkout of 2,000 files here, against under 10 ms in process).
// The calls are synchronous, a slice of entries at a time with the event loop let go between
// slices: a few hundred lstat calls take about a millisecond that way, where one thread-pool
// round trip each takes ten times as long on a busy host, and the host's other tasks still run.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";

export interface TreeSize {
  /** Bytes allocated, as `du -B1` counts them (blocks of 512 bytes). */
  readonly bytes: number;
  /** Files, directories and links, as `du --inodes` counts them. */
  readonly entries: number;
}

export interface SettledWalk {
  /** Entries read before the event loop is let go. */
  readonly sliceEntries: number;
  /** The walk ends once the bytes pass this: the answer (over) is known. */
  readonly stopAboveBytes: number;
  /** The walk ends once the entries pass this. */
  readonly stopAboveEntries: number;
}

/**
 * What `du -s -x -P` says of `dir` in bytes and in inodes: links not followed, directories on
 * another file system left out, a file with several links counted once. A walk that passes one
 * of the stops ends there, with totals that are past it (not the whole tree's). Undefined when
 * the tree cannot be read whole, so the caller asks du instead. Only for a tree that nothing
 * changes while it is read.
 */
export async function measureSettledTree(
  dir: string,
  walk: SettledWalk,
): Promise<TreeSize | undefined> {
  try {
    const root = lstatSync(dir);
    if (!root.isDirectory()) return undefined;
    const linked = new Set<string>();
    let bytes = root.blocks * 512;
    let entries = 1;
    let slice = 0;
    const pending = [dir];
    for (let at = pending.pop(); at !== undefined; at = pending.pop()) {
      for (const name of readdirSync(at)) {
        const path = join(at, name);
        const info = lstatSync(path);
        if (info.isDirectory() && info.dev !== root.dev) continue;
        if (!info.isDirectory() && info.nlink > 1) {
          const key = `${info.dev}:${info.ino}`;
          if (linked.has(key)) continue;
          linked.add(key);
        }
        entries += 1;
        bytes += info.blocks * 512;
        if (entries > walk.stopAboveEntries || bytes > walk.stopAboveBytes) {
          return { bytes, entries };
        }
        if (info.isDirectory()) pending.push(path);
        if (++slice >= walk.sliceEntries) {
          slice = 0;
          await nextTurn();
        }
      }
    }
    return { bytes, entries };
  } catch {
    return undefined;
  }
}
