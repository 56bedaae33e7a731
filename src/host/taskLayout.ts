// The host's files inside a task's directory, beside the store's own: the store names the task's
// directory and its results/, the host adds its own. share/, workspace/ and egress/ are made fresh
// for each attach and removed after it (cleanAttempt.ts); results/ keeps what was verified.
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { RESULT_FILE_NAMES } from "../protocol/index.js";
import { isRealDir, refuseLink, TaskPaths } from "../store/index.js";

export const HOST_FILES = {
  /** The task share the sandbox mounts read-only. */
  share: "share",
  /** The empty directory the runner clones into; the agent's working directory. */
  workspace: "workspace",
  /** The egress proxy's and relay's unix sockets. */
  egress: "egress",
  /** The guest's stderr, cleaned and labelled, with warden's own notes between. */
  guestLog: "guest.log",
  /** The output of a detached `warden start`. */
  hostLog: "host.log",
  /** One line per distinct egress decision (written by the proxy). */
  proxyLog: "proxy.log",
  /** What the relay metered for the task over all its attaches (spending/spendRecord.ts). */
  spend: "spend.json",
} as const;

/** The store's paths of the task that the host uses, and the host's own. */
export interface TaskLayout extends Pick<TaskPaths, "id" | "dir" | "results"> {
  /** The data directory the task is in: an attach's workspace is removed by way of its staging. */
  dataDir: string;
  share: string;
  workspace: string;
  egress: string;
  guestLog: string;
  hostLog: string;
  proxyLog: string;
  /** The task's spend record, beside spec.json: it outlives each attach's results. */
  spend: string;
  /** results/<name> of one result file. */
  result(name: (typeof RESULT_FILE_NAMES)[number]): string;
}

/** Pure: where each of the host's files of task `id` is. */
export function taskLayout(dataDir: string, id: string): TaskLayout {
  const { dir, results } = new TaskPaths(dataDir, id);
  return {
    id,
    dataDir,
    dir,
    share: join(dir, HOST_FILES.share),
    workspace: join(dir, HOST_FILES.workspace),
    egress: join(dir, HOST_FILES.egress),
    results,
    guestLog: join(results, HOST_FILES.guestLog),
    hostLog: join(results, HOST_FILES.hostLog),
    proxyLog: join(results, HOST_FILES.proxyLog),
    spend: join(dir, HOST_FILES.spend),
    result: (name) => join(results, name),
  };
}

/**
 * Makes the directories of a new attach: the share and the workspace empty, the results of an
 * earlier attach removed (host.log and proxy.log go on, one attach after another).
 */
export async function prepareAttempt(layout: TaskLayout): Promise<void> {
  refusePlantedLinks(layout);
  await Promise.all([
    rm(layout.share, { recursive: true, force: true }),
    rm(layout.workspace, { recursive: true, force: true }),
    rm(layout.guestLog, { force: true }),
    ...RESULT_FILE_NAMES.map((name) => rm(layout.result(name), { force: true })),
  ]);
  await mkdir(layout.results, { recursive: true, mode: 0o700 });
  await mkdir(layout.share, { mode: 0o700 });
  await mkdir(layout.workspace, { mode: 0o700 });
}

/**
 * Refuses a symbolic link where the host keeps a directory or file of its own (PLANTED_LINK):
 * an attach would write into, read from or empty whatever it points at. Checked before anything
 * is removed or made, since O_NOFOLLOW guards only a path's last part.
 */
export function refusePlantedLinks(layout: TaskLayout): void {
  for (const dir of [layout.share, layout.workspace, layout.egress]) refuseLink(dir);
  if (!isRealDir(layout.results)) return;
  for (const name of RESULT_FILE_NAMES) refuseLink(layout.result(name));
  for (const file of [layout.guestLog, layout.hostLog, layout.proxyLog]) refuseLink(file);
}
