// Finds the runner's host pid inside a bwrap sandbox, to send it SIGTERM.
import { readdir, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { SANDBOX_LIMITS } from "./limits.js";

/**
 * The host pid of the runner: the child of the sandbox's first process whose pid inside the
 * sandbox is 2 (bwrap's reaper is 1 and forks the runner first).
 */
export async function findRunnerPid(initPid: number): Promise<number | null> {
  const deadline = Date.now() + SANDBOX_LIMITS.findRunnerMs;
  for (;;) {
    for (const child of await childrenOf(initPid)) {
      const status = await readFile(`/proc/${child}/status`, "utf8").catch(() => "");
      const nspid = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/);
      if (nspid !== undefined && nspid[nspid.length - 1] === "2") return child;
    }
    if (Date.now() > deadline) return null;
    await sleep(5);
  }
}

/** The children of a process: from /proc's children list, or by scanning /proc without it. */
async function childrenOf(pid: number): Promise<number[]> {
  try {
    const list = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8");
    return list
      .split(" ")
      .filter((s) => s !== "")
      .map(Number);
  } catch {
    // Kernels built without CONFIG_PROC_CHILDREN: find the processes whose parent it is.
    return scanChildren(pid);
  }
}

/** The children of a process, found by reading every process's parent in /proc. */
export async function scanChildren(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const entry of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, "utf8").catch(() => "");
    if (new RegExp(`^PPid:\\s+${pid}$`, "m").test(status)) children.push(Number(entry));
  }
  return children;
}
