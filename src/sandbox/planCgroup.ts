// Which cgroup directories bound one sandbox, with which settings: pure.
import type { CgroupHost } from "./cgroupHost.js";
import { mib } from "./sandboxBounds.js";
import type { SandboxLimits } from "./sandboxRequest.js";

/** bwrap's own process, which watches the sandbox from outside it and is in its cgroups. */
export const BWRAP_MONITOR_PROCESSES = 1;

export interface CgroupSetting {
  file: string;
  value: string;
  /** A file some kernels lack (swap accounting): a failure to write it is not a failure. */
  optional: boolean;
}

export interface CgroupDir {
  version: 1 | 2;
  path: string;
  settings: CgroupSetting[];
}

export interface CgroupPlan {
  dirs: CgroupDir[];
  /**
   * Each bound in force that this host cannot apply, in words the host can show. A plan with
   * any is never started: a bound is never silently dropped.
   */
  unavailable: string[];
}

/**
 * Plans `warden-<name>` cgroups (the name is the task's id and a nonce of the start's own): one directory holding both limits on cgroup v2, one per
 * controller on v1. A bound the host cannot apply is named in `unavailable`, and the sandbox is not started.
 */
export function planCgroup(name: string, limits: SandboxLimits, host: CgroupHost): CgroupPlan {
  const dirName = `warden-${name}`;
  const dirs = new Map<string, CgroupDir>();
  const unavailable: string[] = [];
  const dirFor = (version: 1 | 2, parent: string): CgroupDir => {
    const path = `${parent}/${dirName}`;
    let dir = dirs.get(path);
    if (dir === undefined) {
      dir = { version, path, settings: [] };
      dirs.set(path, dir);
    }
    return dir;
  };
  if (limits.memoryBytes !== undefined && limits.memoryBytes > 0) {
    const site = host.memory;
    if (!site.ok) {
      unavailable.push(`the memory bound of ${mib(limits.memoryBytes)}: ${site.why}`);
    } else {
      const bytes = String(limits.memoryBytes);
      const settings: CgroupSetting[] =
        site.version === 2
          ? [
              { file: "memory.max", value: bytes, optional: false },
              { file: "memory.swap.max", value: "0", optional: true },
            ]
          : [
              { file: "memory.limit_in_bytes", value: bytes, optional: false },
              // Memory plus swap, so swapping out does not lift the bound; set after the limit.
              { file: "memory.memsw.limit_in_bytes", value: bytes, optional: true },
            ];
      dirFor(site.version, site.parent).settings.push(...settings);
    }
  }
  if (limits.processes !== undefined && limits.processes > 0) {
    const site = host.pids;
    if (!site.ok) {
      unavailable.push(`the bound of ${limits.processes} processes: ${site.why}`);
    } else {
      dirFor(site.version, site.parent).settings.push({
        file: "pids.max",
        // bwrap's own process outside the sandbox joins the cgroup too (bwrapBackend.ts): the
        // bound counts the sandbox's processes alone, as its name says.
        value: String(limits.processes + BWRAP_MONITOR_PROCESSES),
        optional: false,
      });
    }
  }
  return { dirs: [...dirs.values()], unavailable };
}
