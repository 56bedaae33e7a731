// Where this host lets warden bound a sandbox's memory and process count: cgroup v1 or v2.
import { access, readFile, writeFile } from "node:fs/promises";
import { constants } from "node:fs";
import { join, posix } from "node:path";

export type CgroupController = "memory" | "pids";

/** Where a controller's cgroups for sandboxes are made, or why they cannot be. */
export type CgroupSite = { ok: true; version: 1 | 2; parent: string } | { ok: false; why: string };

export type CgroupHost = Record<CgroupController, CgroupSite>;

interface CgroupMount {
  version: 1 | 2;
  /** The cgroup path mounted there (the mount's root), usually "/". */
  root: string;
  mountPoint: string;
  controllers: string[];
}

/** The cgroup file systems mounted, from /proc/self/mountinfo (see proc(5)). */
export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (left === undefined || right === undefined) continue;
    const fields = left.split(" ");
    const [fsType, , superOptions = ""] = right.split(" ");
    const root = fields[3];
    const mountPoint = fields[4];
    if (root === undefined || mountPoint === undefined) continue;
    const unescape = (s: string): string =>
      s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    if (fsType === "cgroup2") {
      mounts.push({
        version: 2,
        root: unescape(root),
        mountPoint: unescape(mountPoint),
        controllers: [],
      });
    } else if (fsType === "cgroup") {
      const controllers = superOptions.split(",").filter((o) => o === "memory" || o === "pids");
      mounts.push({
        version: 1,
        root: unescape(root),
        mountPoint: unescape(mountPoint),
        controllers,
      });
    }
  }
  return mounts;
}

/** This process's cgroup per hierarchy, from /proc/self/cgroup: v1 by controller, v2 as "". */
export function parseProcCgroup(text: string): Map<string, string> {
  const paths = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (match === null) continue;
    const [, , controllers = "", path = ""] = match;
    if (controllers === "") paths.set("", path);
    for (const c of controllers.split(",")) if (c !== "") paths.set(c, path);
  }
  return paths;
}

/** The directory of cgroup `path` under a mount of `root` at `mountPoint`, or null if outside. */
function cgroupDir(mount: CgroupMount, path: string): string | null {
  const relative = posix.relative(mount.root, path);
  if (relative.startsWith("..")) return null;
  return join(mount.mountPoint, relative);
}

async function writable(dir: string): Promise<boolean> {
  try {
    await access(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * Makes sure `controller` is enabled for the children of a v2 cgroup, enabling it when it is
 * not. The kernel refuses that for a cgroup (other than the root) that has processes of its own,
 * which is why a delegated cgroup, or warden running in the root cgroup, is needed.
 */
async function enableV2(dir: string, controller: CgroupController): Promise<string | null> {
  const available = (await readText(join(dir, "cgroup.controllers"))) ?? "";
  if (!available.split(/\s+/).includes(controller)) {
    return `cgroup v2 does not offer the ${controller} controller in ${dir}`;
  }
  const enabled = (await readText(join(dir, "cgroup.subtree_control"))) ?? "";
  if (enabled.split(/\s+/).includes(controller)) return null;
  try {
    await writeFile(join(dir, "cgroup.subtree_control"), `+${controller}`);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "an error";
    return `cannot enable the ${controller} controller for children of ${dir} (${code}): warden's cgroup is not delegated to it`;
  }
}

async function siteFor(
  controller: CgroupController,
  mounts: CgroupMount[],
  own: Map<string, string>,
  v2Parent: string | undefined,
): Promise<CgroupSite> {
  const v1 = mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
  if (v1 !== undefined) {
    const path = own.get(controller);
    const dir = path === undefined ? null : cgroupDir(v1, path);
    if (dir === null)
      return {
        ok: false,
        why: `this process's ${controller} cgroup is outside the mounted hierarchy`,
      };
    if (!(await writable(dir)))
      return { ok: false, why: `cgroup v1 ${dir} is not writable by warden` };
    return { ok: true, version: 1, parent: dir };
  }
  const v2 = mounts.find((m) => m.version === 2);
  if (v2 === undefined)
    return { ok: false, why: `no cgroup file system offers the ${controller} controller` };
  const path = own.get("");
  const dir = v2Parent ?? (path === undefined ? null : cgroupDir(v2, path));
  if (dir === null)
    return { ok: false, why: "this process's cgroup v2 is outside the mounted hierarchy" };
  if (!(await writable(dir)))
    return { ok: false, why: `cgroup v2 ${dir} is not writable by warden` };
  const refusal = await enableV2(dir, controller);
  return refusal === null ? { ok: true, version: 2, parent: dir } : { ok: false, why: refusal };
}

export interface CgroupHostOptions {
  /** A cgroup v2 directory delegated to warden, to make sandbox cgroups in. */
  cgroupParent?: string;
}

/**
 * Finds where sandbox cgroups can be made for each controller. Reads /proc and may enable a
 * controller in a v2 cgroup's subtree_control; creates nothing.
 */
export async function probeCgroupHost(options: CgroupHostOptions = {}): Promise<CgroupHost> {
  const mountinfo = (await readText("/proc/self/mountinfo")) ?? "";
  const own = parseProcCgroup((await readText("/proc/self/cgroup")) ?? "");
  const mounts = parseCgroupMounts(mountinfo);
  return {
    memory: await siteFor("memory", mounts, own, options.cgroupParent),
    pids: await siteFor("pids", mounts, own, options.cgroupParent),
  };
}
