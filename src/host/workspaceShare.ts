// The bound workspaces' part of a task's share: each repository's history cache leased (as the
// task's own is), and workspaces.json naming each cache, base and source for the runner.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { formatWorkspacesInput, SHARE_FILES, type WorkspaceInput } from "../protocol/index.js";
import { leaseHistory, type HistoryLease } from "./historyCache/index.js";
import { workspaceInput, type StoredWorkspace } from "./workspaceBindings.js";

export interface LeasedWorkspaces {
  /** What workspaces.json says of each, in binding order. */
  readonly inputs: readonly WorkspaceInput[];
  /** The history repositories, to bind read-only into the sandbox. */
  readonly repositories: readonly string[];
  /** Drops every lease: the sandbox no longer reads them. */
  release(): void;
}

/**
 * Leases the history cache of each bound workspace, one after the other; on a failure the
 * leases already taken are released before it is thrown.
 */
export async function leaseWorkspaces(
  dataDir: string,
  workspaces: readonly StoredWorkspace[],
): Promise<LeasedWorkspaces> {
  const leases: HistoryLease[] = [];
  const release = (): void => {
    for (const lease of leases) lease.release();
  };
  try {
    for (const workspace of workspaces) {
      leases.push(await leaseHistory(dataDir, workspace, workspace.base));
    }
  } catch (error) {
    release();
    throw error;
  }
  return {
    inputs: workspaces.map((w, i) => workspaceInput(w, leases[i]?.repository ?? "")),
    repositories: leases.map((lease) => lease.repository),
    release,
  };
}

/** Writes workspaces.json into the share, exclusively (a file or link in its place is refused). */
export async function writeWorkspacesShare(
  dir: string,
  mainSource: string,
  inputs: readonly WorkspaceInput[],
): Promise<void> {
  const text = formatWorkspacesInput({ mainSource, workspaces: [...inputs] });
  await writeFile(join(dir, SHARE_FILES.workspaces), text, { mode: 0o600, flag: "wx" });
}
