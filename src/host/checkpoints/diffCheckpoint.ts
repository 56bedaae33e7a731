// `warden diff` of a task that has not finished: its changes as of its last checkpoint, the
// uncommitted work included. The kept bundle is copied aside first (a new checkpoint may take
// its place while the diff reads it), then checked as a finished task's bundle is: header
// against the base, every object with git's strict checks, in a scratch repository.
import { randomBytes } from "node:crypto";
import { copyFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { cleanLine, cleanText } from "../../protocol/index.js";
import type { TaskDetails, Tasks } from "../../store/index.js";
import { NotAHostTaskError, noHostSettings, TaskNotFinishedError } from "../errors.js";
import { diffChanges, type ChangeCommit } from "../fetchChanges.js";
import { readHostSettings } from "../hostSettings.js";
import { taskLayout } from "../taskLayout.js";
import { readCheckpoint } from "./checkpointFiles.js";

/** How often a copy is tried again when a new checkpoint took the kept one's place meanwhile. */
const COPY_TRIES = 3;

/** The diff of a checkpoint, as `warden diff` prints it (fetchTask.ts's TaskDiff). */
export interface CheckpointDiff {
  id: string;
  base: string;
  head: string;
  diff: string;
  commits?: ChangeCommit[];
  checkpoint: { seq: number; at: number };
}

/** The task's changes against its base as of its last checkpoint, cleaned for a terminal. */
export async function diffCheckpoint(
  tasks: Tasks,
  details: TaskDetails,
  options: { stat?: boolean; commits?: boolean },
): Promise<CheckpointDiff> {
  const { id, spec } = details;
  const host = readHostSettings(id, spec.settings);
  if (spec.base === undefined) {
    throw new NotAHostTaskError(noHostSettings(id, "its spec names no start commit"));
  }
  const base = spec.base;
  const dir = taskLayout(tasks.dataDir, id).dir;
  const copy = join(dir, `diff-${randomBytes(6).toString("hex")}.bundle`);
  try {
    for (let attempt = 1; ; attempt++) {
      const kept = await readCheckpoint(dir);
      if (kept === undefined || kept.manifest.base !== base) {
        throw new TaskNotFinishedError(
          `task ${id} is ${details.state} and has kept no checkpoint yet, so it has no changes to show`,
          { hint: "a running task keeps one at each turn boundary; try again in a moment" },
        );
      }
      const checkpoint = { seq: kept.manifest.seq, at: kept.manifest.at };
      if (kept.bundle === undefined) {
        return {
          id,
          base,
          head: base,
          diff: "",
          checkpoint,
          ...(options.commits ? { commits: [] } : {}),
        };
      }
      try {
        await copyFile(kept.bundle, copy);
      } catch (error) {
        if (attempt < COPY_TRIES) continue;
        throw error;
      }
      const { diff, commits } = await diffChanges(
        { gitDir: host.gitDir, objectFormat: host.objectFormat, bundle: copy, base },
        dir,
        options.stat === true ? ["--stat"] : [],
        options.commits === true,
      );
      return {
        id,
        base,
        head: kept.manifest.tip ?? kept.manifest.head,
        diff: cleanText(diff),
        checkpoint,
        ...(options.commits === true
          ? {
              commits: commits.map((c) => ({
                sha: cleanLine(c.sha),
                subject: cleanLine(c.subject),
              })),
            }
          : {}),
      };
    }
  } finally {
    await rm(copy, { force: true });
  }
}
