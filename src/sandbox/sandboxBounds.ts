// The bounds a running sandbox can trip, and how the host measures the workspace's share of disk.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { SANDBOX_LIMITS } from "./limits.js";
import { measureSettledTree } from "./measureSettledTree.js";

const run = promisify(execFile);

export const SANDBOX_BOUNDS = ["memory", "processes", "disk"] as const;
export type SandboxBoundName = (typeof SANDBOX_BOUNDS)[number];

/** A bound the sandbox reached, as the host itself saw it (never as the sandbox claims it). */
export interface SandboxBound {
  bound: SandboxBoundName;
  /** What was reached, in the user's words: "the memory bound of 256 MiB". */
  detail: string;
}

export function mib(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}

/**
 * `du`'s total for one directory: bytes allocated (`-B1`) or entries (`--inodes`). du walks with
 * openat and never follows a link (-P), and -x keeps it on the workspace's file system, so a
 * tree the sandbox rearranges while it is read can neither lead it elsewhere nor hide from it.
 */
async function duTotal(dir: string, what: "bytes" | "inodes"): Promise<number | null> {
  const unit = what === "bytes" ? "-B1" : "--inodes";
  try {
    const { stdout } = await run("du", ["-s", "-x", "-P", unit, "--", dir], {
      timeout: SANDBOX_LIMITS.measureMs,
      maxBuffer: 64 * 1024,
    });
    const total = Number(/^(\d+)/.exec(stdout)?.[1]);
    return Number.isSafeInteger(total) ? total : null;
  } catch (error) {
    // du reports files removed while it walks, and exits 1; its total still counts the rest.
    const stdout = (error as { stdout?: unknown }).stdout;
    const total = typeof stdout === "string" ? Number(/^(\d+)/.exec(stdout)?.[1]) : NaN;
    return Number.isSafeInteger(total) ? total : null;
  }
}

/**
 * The workspace's disk bound, if reached: its bytes, or its count of files. `settled` says the
 * sandbox has ended, so the workspace is measured in this process instead of by du.
 */
export async function diskBoundReached(
  workspace: string,
  diskBytes: number,
  settled = false,
): Promise<SandboxBound | null> {
  const measured = settled
    ? await measureSettledTree(workspace, {
        sliceEntries: SANDBOX_LIMITS.settledSliceEntries,
        stopAboveBytes: diskBytes,
        stopAboveEntries: SANDBOX_LIMITS.diskFiles,
      })
    : undefined;
  // Else (the sandbox runs, or the tree could not be read whole) two walks of the same tree,
  // one process each, at the same time. du walks with openat, so a tree the sandbox rearranges
  // under it cannot lead it through a link, as a walk by path could be.
  const [bytes, files] =
    measured === undefined
      ? await Promise.all([duTotal(workspace, "bytes"), duTotal(workspace, "inodes")])
      : [measured.bytes, measured.entries];
  if (bytes !== null && bytes > diskBytes) {
    return { bound: "disk", detail: `the workspace's disk bound of ${mib(diskBytes)}` };
  }
  if (files !== null && files > SANDBOX_LIMITS.diskFiles) {
    return {
      bound: "disk",
      detail: `the workspace's bound of ${SANDBOX_LIMITS.diskFiles} files and directories`,
    };
  }
  return null;
}
