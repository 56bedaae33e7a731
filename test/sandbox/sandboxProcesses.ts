// The processes of a running sandbox as the host sees them: the truth about their identity,
// which no process inside can report (inside, /proc/self/uid_map names only its own parent
// namespace, and bwrap nests a second user namespace).
import { strict as assert } from "node:assert";
import { readdir, readFile, readlink } from "node:fs/promises";

/** One line of /proc/<pid>/uid_map or gid_map. */
export interface IdMapLine {
  inside: number;
  /** The id this maps to, in the user namespace of the process that read the file. */
  outside: number;
  count: number;
}

export interface HostView {
  pid: number;
  command: string;
  /** Read by this (host) process, so `outside` is a host id. */
  uidMap: IdMapLine[];
  gidMap: IdMapLine[];
  /** Real, effective, saved and file-system ids, from the host's /proc/<pid>/status. */
  uids: number[];
  gids: number[];
  /** Supplementary groups, as the host numbers them. */
  groups: number[];
  /** 0 none, 1 strict, 2 filter. */
  seccomp: number;
}

export function parseIdMap(text: string): IdMapLine[] {
  return text
    .trim()
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [inside = NaN, outside = NaN, count = NaN] = line.trim().split(/\s+/).map(Number);
      return { inside, outside, count };
    });
}

function statusField(status: string, name: string): number[] {
  const value = new RegExp(`^${name}:[ \\t]*(.*)$`, "m").exec(status)?.[1] ?? "";
  return value
    .trim()
    .split(/\s+/)
    .filter((s) => s !== "")
    .map(Number);
}

/** The supplementary groups of a host process. */
export async function groupsOf(pid: number): Promise<number[]> {
  return statusField(await readFile(`/proc/${pid}/status`, "utf8"), "Groups");
}

/** Every process at or below `pid`, read from the parents /proc names. */
export async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, "utf8").catch(() => "");
    const ppid = /^PPid:\s+(\d+)$/m.exec(status)?.[1];
    if (ppid !== undefined) parents.set(Number(entry), Number(ppid));
  }
  const found = [pid];
  for (let i = 0; i < found.length; i++) {
    for (const [child, parent] of parents) if (parent === found[i]) found.push(child);
  }
  return found;
}

async function hostView(pid: number): Promise<HostView | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    return {
      pid,
      command: (await readFile(`/proc/${pid}/comm`, "utf8")).trim(),
      uidMap: parseIdMap(await readFile(`/proc/${pid}/uid_map`, "utf8")),
      gidMap: parseIdMap(await readFile(`/proc/${pid}/gid_map`, "utf8")),
      uids: statusField(status, "Uid"),
      gids: statusField(status, "Gid"),
      groups: statusField(status, "Groups"),
      seccomp: statusField(status, "Seccomp")[0] ?? NaN,
    };
  } catch {
    // The process ended while it was read.
    return null;
  }
}

/**
 * The processes at or below `pid` that live in another user namespace than this one: the
 * sandbox's own processes, as opposed to the bwraps and the waiter that set it up.
 */
export async function sandboxedProcesses(pid: number): Promise<HostView[]> {
  const ours = await readlink("/proc/self/ns/user");
  const views: HostView[] = [];
  for (const p of await descendants(pid)) {
    const namespace = await readlink(`/proc/${p}/ns/user`).catch(() => ours);
    if (namespace === ours) continue;
    const view = await hostView(p);
    if (view !== null) views.push(view);
  }
  return views;
}

/**
 * Asserts that the sandbox's processes are host uid `uid` and gid `gid` and nothing else: each
 * map names exactly that id and never 0, the ids in /proc/<pid>/status are it, and the
 * supplementary groups are `groups` (none for a dedicated uid: root's must not carry over).
 */
export function assertRunsAs(
  views: readonly HostView[],
  ids: { uid: number; gid: number; groups: readonly number[] },
): void {
  const { uid, gid } = ids;
  assert.ok(views.length >= 2, `the sandbox's init and runner are seen: ${JSON.stringify(views)}`);
  for (const view of views) {
    const where = `${view.command} (host pid ${view.pid})`;
    for (const [what, map, id] of [
      ["uid_map", view.uidMap, uid],
      ["gid_map", view.gidMap, gid],
    ] as const) {
      assert.ok(map.length > 0, `${where} has an empty ${what}`);
      for (const line of map) {
        assert.notEqual(line.outside, 0, `${where}'s ${what} names host id 0`);
        assert.equal(line.outside, id, `${where}'s ${what} is ${JSON.stringify(map)}`);
        assert.equal(line.count, 1, `${where}'s ${what} maps a range: ${JSON.stringify(map)}`);
      }
    }
    assert.deepEqual(view.uids, [uid, uid, uid, uid], `${where}'s Uid line`);
    assert.deepEqual(view.gids, [gid, gid, gid, gid], `${where}'s Gid line`);
    assert.deepEqual(view.groups, ids.groups, `${where}'s supplementary groups`);
  }
}
