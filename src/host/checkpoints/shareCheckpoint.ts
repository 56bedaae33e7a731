// An attach that finds a kept checkpoint starts from it: its bundle (checked again against the
// base, since the file has lain on disk) and its session file go into the share, and task.json's
// `resume` says what they are. A checkpoint of another base, or one whose bundle fails its check,
// is set aside with a warning and the attach starts from the spec, as one without any would.
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../../lang/index.js";
import {
  CHECKPOINT_SHARE_FILES,
  checkBundle,
  readBundleHeaderFile,
  type ResumeSettings,
} from "../../protocol/index.js";
import { readCheckpoint, type CheckpointManifest } from "./checkpointFiles.js";

/** What the share holds of a checkpoint, for task.json and the `resumed` event. */
export interface SharedCheckpoint {
  readonly resume: ResumeSettings;
  readonly manifest: CheckpointManifest;
}

/**
 * The resume settings a manifest stands for; `suspended` says the attach runs on a task that was
 * suspended (its suspension record said so), not one whose run was cut off. Pure.
 */
export function resumeOf(
  manifest: CheckpointManifest,
  hasSession: boolean,
  suspended: boolean,
): ResumeSettings {
  const changed = (manifest.tip ?? manifest.head) !== manifest.base;
  return {
    reason: manifest.origin === "continue" ? "continued" : suspended ? "suspended" : "interrupted",
    ...(changed ? { head: manifest.head } : {}),
    ...(changed && manifest.tip !== undefined ? { tip: manifest.tip } : {}),
    ...(hasSession && manifest.sessionId !== undefined ? { sessionId: manifest.sessionId } : {}),
  };
}

/**
 * Copies the task's kept checkpoint into the share; undefined when there is none to start from.
 * `suspended` says the task was suspended before this attach; `warn` says why a kept one was set
 * aside.
 */
export async function shareCheckpoint(
  taskDir: string,
  shareDir: string,
  base: string,
  suspended: boolean,
  warn: (text: string) => void,
): Promise<SharedCheckpoint | undefined> {
  const kept = await readCheckpoint(taskDir);
  if (kept === undefined) return undefined;
  const { manifest } = kept;
  if (manifest.base !== base) {
    warn(`checkpoint ${manifest.seq} is of another start commit; the task starts from its spec`);
    return undefined;
  }
  const changed = (manifest.tip ?? manifest.head) !== base;
  if (changed) {
    if (kept.bundle === undefined) {
      warn(`checkpoint ${manifest.seq} has lost its bundle; the task starts from its spec`);
      return undefined;
    }
    try {
      const tip = checkBundle(await readBundleHeaderFile(kept.bundle), base);
      if (tip !== (manifest.tip ?? manifest.head)) throw new Error("its tip is not the one kept");
    } catch (error) {
      warn(
        `checkpoint ${manifest.seq}'s bundle failed its check (${errorMessage(error)}); the task starts from its spec`,
      );
      return undefined;
    }
    await copyFile(kept.bundle, join(shareDir, CHECKPOINT_SHARE_FILES.bundle));
  }
  if (kept.session !== undefined) {
    await copyFile(kept.session, join(shareDir, CHECKPOINT_SHARE_FILES.session));
  }
  return { resume: resumeOf(manifest, kept.session !== undefined, suspended), manifest };
}
