// The cgroups of one sandbox: made before it runs, joined by its first process, removed after.
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { CgroupDir, CgroupPlan } from "./planCgroup.js";
import { SANDBOX_LIMITS } from "./limits.js";

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ?? e.message;
}

async function procsOf(dir: CgroupDir): Promise<number[]> {
  try {
    const text = await readFile(join(dir.path, "cgroup.procs"), "utf8");
    return text
      .split("\n")
      .filter((l) => l !== "")
      .map(Number);
  } catch {
    return [];
  }
}

function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}

export class SandboxCgroup {
  private constructor(private readonly dirs: CgroupDir[]) {}

  /**
   * Makes the planned directories and writes their limits. A directory left by an earlier run
   * of the same task is reused once whatever is still in it is killed. What cannot be applied
   * is returned in `failures`, and its directory is not used; the caller refuses to start.
   */
  static async create(plan: CgroupPlan): Promise<{ cgroup: SandboxCgroup; failures: string[] }> {
    const made: CgroupDir[] = [];
    const failures: string[] = [];
    for (const dir of plan.dirs) {
      try {
        await mkdir(dir.path, { mode: 0o755 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          failures.push(`the cgroup ${dir.path} could not be made (${describe(error)})`);
          continue;
        }
        killPids(await procsOf(dir));
      }
      try {
        for (const setting of dir.settings) {
          try {
            await writeFile(join(dir.path, setting.file), setting.value);
          } catch (error) {
            if (!setting.optional) throw error;
          }
        }
        made.push(dir);
      } catch (error) {
        failures.push(`the bounds of ${dir.path} could not be set (${describe(error)})`);
        await rmdir(dir.path).catch(() => undefined);
      }
    }
    return { cgroup: new SandboxCgroup(made), failures };
  }

  get empty(): boolean {
    return this.dirs.length === 0;
  }

  /** Moves a process in; what it forks from then on is in too. */
  async add(pid: number): Promise<void> {
    for (const dir of this.dirs) await writeFile(join(dir.path, "cgroup.procs"), String(pid));
  }

  /** Whether the process is in every one of the sandbox's cgroups. */
  async holds(pid: number): Promise<boolean> {
    for (const dir of this.dirs) if (!(await procsOf(dir)).includes(pid)) return false;
    return true;
  }

  /** SIGKILLs every process in the sandbox's cgroups, whatever namespace it is in. */
  async killAll(): Promise<void> {
    for (const dir of this.dirs) {
      if (dir.version === 2) {
        try {
          await writeFile(join(dir.path, "cgroup.kill"), "1");
          continue;
        } catch {
          // Kernels before 5.14 have no cgroup.kill: kill the listed processes instead.
        }
      }
      killPids(await procsOf(dir));
    }
  }

  /** Whether the kernel killed a process of the sandbox for going over the memory limit. */
  async outOfMemory(): Promise<boolean> {
    for (const dir of this.dirs) {
      const file = dir.version === 2 ? "memory.events" : "memory.oom_control";
      const text = await readFile(join(dir.path, file), "utf8").catch(() => "");
      const kills = /^oom_kill (\d+)$/m.exec(text);
      if (kills !== null && Number(kills[1]) > 0) return true;
    }
    return false;
  }

  /** Whether a fork or clone of the sandbox failed for want of a process under pids.max. */
  async processLimitReached(): Promise<boolean> {
    for (const dir of this.dirs) {
      const text = await readFile(join(dir.path, "pids.events"), "utf8").catch(() => "");
      const hits = /^max (\d+)$/m.exec(text);
      if (hits !== null && Number(hits[1]) > 0) return true;
    }
    return false;
  }

  /**
   * Removes the directories once empty. A process leaves its cgroup a moment after its exit is
   * reported (about half the time a first rmdir finds it still there), so this retries after a
   * pause that starts at a millisecond and doubles, then gives up and says which remain.
   */
  async remove(): Promise<string[]> {
    const deadline = Date.now() + SANDBOX_LIMITS.cgroupRemoveMs;
    const left: string[] = [];
    for (const dir of this.dirs) {
      let pause: number = SANDBOX_LIMITS.cgroupRemoveFirstPauseMs;
      for (;;) {
        try {
          await rmdir(dir.path);
          break;
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ENOENT") break;
          if (Date.now() > deadline) {
            left.push(`the cgroup ${dir.path} could not be removed (${code ?? "error"})`);
            break;
          }
          killPids(await procsOf(dir));
          await sleep(pause);
          pause = Math.min(2 * pause, SANDBOX_LIMITS.cgroupRemovePauseMs);
        }
      }
    }
    return left;
  }
}
