// Bringing a task's changes home: the bundle is checked without git first, then fetched with
// fsck, into one new branch of the user's repository and nothing else.
import { checkBundle, readBundleHeaderFile, TASK_BRANCH } from "../protocol/index.js";
import { BadBranchNameError, BranchExistsError } from "./errors.js";
import { hostGit } from "./hostGit.js";
import { withScratchRepo, type ScratchRepoSource } from "./scratchRepo.js";

/** The git config of every fetch from a bundle the sandbox made. */
const FSCK = ["-c", "transfer.fsckObjects=true", "-c", "fetch.fsckObjects=true"] as const;

export interface FetchRequest extends ScratchRepoSource {
  /** The user's repository (where the branch goes). */
  repo: string;
  bundle: string;
  base: string;
  /** The short branch name, such as warden/01j... */
  branch: string;
  force: boolean;
}

async function branchExists(repo: string, ref: string): Promise<boolean> {
  try {
    await hostGit(["rev-parse", "--verify", "--quiet", ref], { cwd: repo });
    return true;
  } catch {
    return false;
  }
}

/** Imports the task's branch into the user's repository; returns the head it points at. */
export async function fetchChanges(request: FetchRequest): Promise<string> {
  const head = checkBundle(await readBundleHeaderFile(request.bundle), request.base);
  try {
    await hostGit(["check-ref-format", "--branch", request.branch], { cwd: request.repo });
  } catch {
    throw new BadBranchNameError(request.branch);
  }
  if (request.branch.startsWith("-")) throw new BadBranchNameError(request.branch);
  const ref = `refs/heads/${request.branch}`;
  if (!request.force && (await branchExists(request.repo, ref))) {
    throw new BranchExistsError(request.branch);
  }
  await hostGit(
    [
      ...FSCK,
      "fetch",
      "--quiet",
      "--no-tags",
      "--no-write-fetch-head",
      "--no-recurse-submodules",
      request.bundle,
      `${request.force ? "+" : ""}${TASK_BRANCH}:${ref}`,
    ],
    { cwd: request.repo },
  );
  return head;
}

/**
 * The task's changes as a diff against its base, made in a scratch repository so that the
 * user's repository gains no objects and no refs.
 */
export async function diffChanges(
  request: Omit<FetchRequest, "branch" | "force" | "repo">,
  scratchParent: string,
  diffArgs: readonly string[] = [],
): Promise<string> {
  const head = checkBundle(await readBundleHeaderFile(request.bundle), request.base);
  return withScratchRepo(scratchParent, request, async (scratch) => {
    await hostGit(
      [...FSCK, "fetch", "--quiet", "--no-tags", request.bundle, `${TASK_BRANCH}:refs/heads/task`],
      {
        cwd: scratch,
      },
    );
    // No external diff program or text conversion runs on what the sandbox wrote.
    const out = await hostGit(
      [
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        ...diffArgs,
        request.base,
        head,
        "--",
      ],
      { cwd: scratch },
    );
    return out.stdout;
  });
}
