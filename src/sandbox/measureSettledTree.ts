// The workspace's size measured in this process, for the look at the bounds after a sandbox has
// ended: nothing of it runs any more, so the tree cannot change while it is read, and a small
// tree is read faster here than two `du` processes take to start. A large one is left to du.
// The walk is synchronous: a few hundred lstat calls take about a millisecond that way, where
// one thread-pool round trip each takes ten times as long on a busy host.
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

export interface TreeSize {
  /** Bytes allocated, as `du -B1` counts them (blocks of 512 bytes). */
  readonly bytes: number;
  /** Files, directories and links, as `du --inodes` counts them. */
  readonly entries: number;
}

/**
 * What `du -s -x -P` says of `dir` in bytes and in inodes: links not followed, directories on
 * another file system left out, a file with several links counted once. Undefined when the tree
 * holds more than `maxEntries` entries or cannot be read whole, so the caller asks du instead.
 * Only for a tree that nothing changes while it is read.
 */
export function measureSettledTree(dir: string, maxEntries: number): TreeSize | undefined {
  try {
    const root = lstatSync(dir);
    if (!root.isDirectory()) return undefined;
    const linked = new Set<string>();
    let bytes = root.blocks * 512;
    let entries = 1;
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
        if (++entries > maxEntries) return undefined;
        bytes += info.blocks * 512;
        if (info.isDirectory()) pending.push(path);
      }
    }
    return { bytes, entries };
  } catch {
    return undefined;
  }
}
