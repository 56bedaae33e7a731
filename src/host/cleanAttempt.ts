// After an attach: what only that attach needed is removed, the workspace (the task's checkout,
// which can be a monorepo's) by a background deletion the command does not wait for.
import { rm } from "node:fs/promises";
import { removeLater } from "./removeLater.js";
import type { TaskLayout } from "./taskLayout.js";

/**
 * Removes what only one attach needs: the share, the agent's clone, the sockets' directory. The
 * workspace is moved out of the task's directory at once and deleted in the background, so the
 * command that ran the task does not wait for a large checkout to be deleted.
 */
export async function cleanAttempt(layout: TaskLayout): Promise<void> {
  await Promise.all([
    rm(layout.share, { recursive: true, force: true }),
    removeLater(layout.dataDir, layout.workspace, `${layout.id}.workspace`),
    rm(layout.egress, { recursive: true, force: true }),
  ]);
}
