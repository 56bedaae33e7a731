// The bounds a running sandbox can trip, and how the host measures the workspace's share of disk.
import { SANDBOX_LIMITS } from "./limits.js";
import { measureSettledTree } from "./measureSettledTree.js";
import type { WorkspaceMeter } from "./workspaceMeter.js";

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
 * The workspace's disk bound, if reached: its bytes, or its count of files. `settled` says the
 * sandbox has ended, so the workspace is measured in this process; while it runs (or when the
 * settled tree could not be read whole) the meter's du measures it.
 */
export async function diskBoundReached(
  workspace: string,
  diskBytes: number,
  meter: WorkspaceMeter,
  settled = false,
): Promise<SandboxBound | null> {
  const measured = settled
    ? await measureSettledTree(workspace, {
        sliceEntries: SANDBOX_LIMITS.settledSliceEntries,
        stopAboveBytes: diskBytes,
        stopAboveEntries: SANDBOX_LIMITS.diskFiles,
      })
    : undefined;
  const { bytes, entries: files } =
    measured === undefined
      ? await meter.measure(workspace)
      : { bytes: measured.bytes, entries: measured.entries };
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
