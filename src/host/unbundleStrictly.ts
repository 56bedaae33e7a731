// git's strict check of every object of a bundle from the sandbox, in a scratch repository,
// before anything of it goes further. git 2.39 checks no object it fetches from a bundle,
// whatever transfer.fsckObjects says, so the host indexes the bundle's pack itself with
// `git index-pack --strict --fsck-objects`: each object of the pack is checked by fsck's rules
// (with --strict its warnings, such as hasDotgit, are errors), every .gitmodules a tree of the
// pack names is checked even when its blob was already in the user's repository, and every
// object the pack points at must exist. Only the pack's own objects are checked, so a user's
// history with an old malformed commit does not make every task on top of it fail.
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { GitError, type BundleHeader } from "../protocol/index.js";
import { BadObjectsError, failsObjectCheck } from "./errors.js";
import { hostGit } from "./hostGit.js";
import { describeRefusal } from "./objectProblems.js";

/**
 * The environment of the check: git reads no system or global config, so the scratch
 * repository's own config (made by `git init` without templates) is all there is, and no
 * setting of the user's can weaken a check. index-pack reads no fsck.*, fetch.fsck.* or
 * receive.fsck.* setting anyway (those reach it only as arguments); this keeps it so.
 */
const CLEAN_CONFIG_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
};

/** The ref the checked head gets in the scratch repository. */
const SCRATCH_TASK_REF = "refs/heads/task";

/**
 * Indexes the pack of `bundle` (whose header the caller has read and checked) into `scratch`
 * with git's strict checks, then points SCRATCH_TASK_REF at `head`. Throws BadObjectsError when
 * git refuses the pack, naming each problem git found.
 */
export async function unbundleStrictly(
  scratch: string,
  bundle: string,
  header: BundleHeader,
  head: string,
): Promise<void> {
  const file = await open(bundle, constants.O_RDONLY | constants.O_NOFOLLOW);
  // The stream owns the file from here: it closes it when it ends or is destroyed.
  const pack = file.createReadStream({ start: header.packOffset });
  try {
    await hostGit(["index-pack", "--strict", "--fsck-objects", "--fix-thin", "--stdin"], {
      cwd: scratch,
      stdin: pack,
      env: { ...CLEAN_CONFIG_ENV },
    });
  } catch (error) {
    if (error instanceof GitError && error.gitStderr !== undefined) {
      throw new BadObjectsError(failsObjectCheck(describeRefusal(error.gitStderr)));
    }
    throw error;
  } finally {
    pack.destroy();
  }
  // git refuses to point a branch at anything but a commit it has.
  try {
    await hostGit(["update-ref", SCRATCH_TASK_REF, head], {
      cwd: scratch,
      env: { ...CLEAN_CONFIG_ENV },
    });
  } catch (error) {
    if (error instanceof GitError && error.gitStderr !== undefined) {
      throw new BadObjectsError(
        failsObjectCheck(`its head ${head} is not a commit it carries or builds on`),
      );
    }
    throw error;
  }
}
