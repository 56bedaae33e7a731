// Bringing a task's changes home: the bundle's header is checked without git first, then every
// object of it with git's strict checks in a scratch repository (a results directory may be
// older than that check at verification), and only then is it fetched into one new branch of
// the user's repository and nothing else.
import {
  checkBundle,
  cleanLine,
  readBundleHeaderFile,
  TASK_BRANCH,
  type BundleHeader,
} from "../protocol/index.js";
import { BadBranchNameError, BranchExistsError, notABranchName } from "./errors.js";
import { hostGit } from "./hostGit.js";
import { withScratchRepo, type ScratchRepoSource } from "./scratchRepo.js";
import { unbundleStrictly } from "./unbundleStrictly.js";

/**
 * The git config of the fetch into the user's repository. The objects were checked strictly
 * just before; a git that checks bundles itself checks them again.
 */
const FSCK = ["-c", "transfer.fsckObjects=true", "-c", "fetch.fsckObjects=true"] as const;

export interface FetchRequest extends ScratchRepoSource {
  /** The user's repository (where the branch goes). */
  repo: string;
  bundle: string;
  base: string;
  /** The short branch name, such as warden/01j... */
  branch: string;
  force: boolean;
  /** Where the scratch repository of the check is made (the task's directory). */
  scratchParent: string;
}

/** The header of `bundle`, checked against `base`, and the head it carries. */
async function checkedHeader(
  bundle: string,
  base: string,
): Promise<{ header: BundleHeader; head: string }> {
  const header = await readBundleHeaderFile(bundle);
  return { header, head: checkBundle(header, base) };
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
  const { header, head } = await checkedHeader(request.bundle, request.base);
  try {
    await hostGit(["check-ref-format", "--branch", request.branch], { cwd: request.repo });
  } catch {
    throw new BadBranchNameError(notABranchName(request.branch));
  }
  if (request.branch.startsWith("-")) {
    throw new BadBranchNameError(notABranchName(request.branch));
  }
  const ref = `refs/heads/${request.branch}`;
  if (!request.force && (await branchExists(request.repo, ref))) {
    throw new BranchExistsError(`the branch ${cleanLine(request.branch)} already exists`);
  }
  // The fetch below reads the same file: it is in the task's results, which only warden
  // writes, and the sandbox that made it has ended.
  await withScratchRepo(request.scratchParent, request, (scratch) =>
    unbundleStrictly(scratch, request.bundle, header, head),
  );
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

/** A commit the task made: its id and the first line of its message, as the sandbox wrote it. */
export interface ChangeCommit {
  readonly sha: string;
  readonly subject: string;
}

/** The task's changes: the diff against its base and, when asked for, the commits, oldest first. */
export interface Changes {
  readonly diff: string;
  readonly commits: readonly ChangeCommit[];
}

/** At most this many commits are listed beside a diff; a task's history is rarely longer. */
const MAX_LISTED_COMMITS = 500;

/**
 * The task's changes as a diff against its base, made in a scratch repository so that the
 * user's repository gains no objects and no refs; with `withCommits`, the commits too.
 */
export async function diffChanges(
  request: Omit<FetchRequest, "branch" | "force" | "repo" | "scratchParent">,
  scratchParent: string,
  diffArgs: readonly string[] = [],
  withCommits = false,
): Promise<Changes> {
  const { header, head } = await checkedHeader(request.bundle, request.base);
  return withScratchRepo(scratchParent, request, async (scratch) => {
    await unbundleStrictly(scratch, request.bundle, header, head);
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
    if (!withCommits) return { diff: out.stdout, commits: [] };
    // NUL ends each field: a subject may hold any other byte the sandbox chose.
    const log = await hostGit(
      [
        "log",
        "--no-color",
        "--reverse",
        `--max-count=${MAX_LISTED_COMMITS}`,
        "--format=%H%x00%s%x00",
        `${request.base}..${head}`,
        "--",
      ],
      { cwd: scratch },
    );
    const fields = log.stdout.split("\0");
    const commits: ChangeCommit[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      commits.push({ sha: (fields[i] ?? "").trim(), subject: fields[i + 1] ?? "" });
    }
    return { diff: out.stdout, commits };
  });
}
