// An attach that resumes starts from the share's checkpoint: the task branch back at the head it
// had, and the uncommitted work back as uncommitted changes on top (the tip's tree in the
// working files, the index at the head), so the agent finds the workspace as it left it and the
// runner's leftovers commit still takes what was never committed.
import { join } from "node:path";
import { CHECKPOINT_SHARE_FILES, TASK_BRANCH, type ResumeSettings } from "../protocol/index.js";
import { CheckpointRestoreError } from "./errors.js";
import type { GitStep } from "./gitSteps.js";
import { runGit, type GitContext } from "./runGit.js";

/** The ref the checkpoint's branch is fetched into, and removed from once it is in place. */
const RESTORED_REF = "refs/warden/checkpoint";

/** The steps that put the checkpoint in place, as data. Pure. */
export function restoreSteps(
  workspace: string,
  bundle: string,
  resume: Required<Pick<ResumeSettings, "head">> & ResumeSettings,
): GitStep[] {
  const tip = resume.tip ?? resume.head;
  const steps: GitStep[] = [
    {
      what: "fetch the checkpoint",
      args: [
        "-C",
        workspace,
        "fetch",
        "--quiet",
        "--no-tags",
        "--no-write-fetch-head",
        bundle,
        `+${TASK_BRANCH}:${RESTORED_REF}`,
      ],
    },
    {
      what: "check that the checkpoint holds its tip",
      args: ["-C", workspace, "merge-base", "--is-ancestor", tip, RESTORED_REF],
    },
    {
      what: "check out the checkpoint",
      args: ["-C", workspace, "reset", "--quiet", "--hard", tip],
    },
  ];
  if (resume.tip !== undefined) {
    // The working files stay the tip's; the branch and the index go back to the head.
    steps.push({
      what: "put the uncommitted work back",
      args: ["-C", workspace, "reset", "--quiet", "--mixed", resume.head],
    });
  }
  steps.push({
    what: "drop the checkpoint's ref",
    args: ["-C", workspace, "update-ref", "-d", RESTORED_REF],
  });
  return steps;
}

/**
 * Puts the share's checkpoint into the prepared workspace, when it carries changes; nothing to do
 * when it changed nothing since the base. Throws CheckpointRestoreError.
 */
export async function restoreCheckpoint(
  share: string,
  resume: ResumeSettings,
  git: GitContext,
  progress: (line: string) => void,
): Promise<void> {
  const head = resume.head;
  if (head === undefined) return;
  const bundle = join(share, CHECKPOINT_SHARE_FILES.bundle);
  progress(`restoring the workspace from its checkpoint at ${resume.tip ?? head}`);
  try {
    for (const step of restoreSteps(git.workspace, bundle, { ...resume, head })) {
      await runGit(git, step);
    }
  } catch (error) {
    throw new CheckpointRestoreError(
      `could not restore the workspace from its checkpoint: ${(error as Error).message}`,
    );
  }
}
