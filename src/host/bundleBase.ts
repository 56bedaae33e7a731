// A bundle of one commit's whole history, made without touching the user's repository: a
// scratch bare repository borrows its objects and holds the one ref the bundle names.
import type { ScratchRepoSource } from "./scratchRepo.js";
import { withScratchRepo } from "./scratchRepo.js";
import { hostGit } from "./hostGit.js";

/** The ref a scratch repository holds the base under; never written into the user's repo. */
const SCRATCH_REF = "refs/heads/base";

/** Writes to `path` a bundle whose HEAD is `base`, working in a scratch directory under `dir`. */
export async function bundleBase(
  dir: string,
  source: ScratchRepoSource & { base: string },
  path: string,
): Promise<void> {
  await withScratchRepo(dir, source, async (scratch) => {
    await hostGit(["update-ref", SCRATCH_REF, source.base], { cwd: scratch });
    await hostGit(["symbolic-ref", "HEAD", SCRATCH_REF], { cwd: scratch });
    await hostGit(["bundle", "create", "--quiet", path, "HEAD"], { cwd: scratch });
  });
}
