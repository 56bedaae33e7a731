// The check of changes.bundle once the archive is in: its header read without git and checked
// against the base the host computed, then git itself, in a scratch repository that borrows the
// user's objects: its pack indexed with git's strict object checks, then its head checked to
// descend from the base. A bundle that fails any step is removed, so nothing of it can be
// fetched later.
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { checkBundle, readBundleHeaderFile } from "../protocol/index.js";
import { errorText } from "./errorText.js";
import { hostGit } from "./hostGit.js";
import { withScratchRepo } from "./scratchRepo.js";
import { unbundleStrictly } from "./unbundleStrictly.js";

/** What the host learned of changes.bundle. */
export type BundleFacts =
  | { kind: "none" }
  | { kind: "verified"; head: string; commits: number }
  | { kind: "refused"; error: string };

export interface VerifyInput {
  bundle: string;
  /** The start commit, as the host computed it when the task was made. */
  base: string;
  gitDir: string;
  objectFormat: "sha1" | "sha256";
  /** Where the scratch repository is made (the task's directory, never the user's repo). */
  scratchParent: string;
}

export async function verifyChanges(input: VerifyInput): Promise<BundleFacts> {
  if (!existsSync(input.bundle)) return { kind: "none" };
  try {
    const header = await readBundleHeaderFile(input.bundle);
    if (header.objectFormat !== input.objectFormat) {
      throw new Error(
        `the bundle is ${header.objectFormat} but the repository is ${input.objectFormat}`,
      );
    }
    const head = checkBundle(header, input.base);
    const commits = await withScratchRepo(input.scratchParent, input, async (scratch) => {
      await unbundleStrictly(scratch, input.bundle, header, head);
      try {
        await hostGit(["merge-base", "--is-ancestor", input.base, head], { cwd: scratch });
      } catch {
        throw new Error(`the head ${head} does not descend from the base ${input.base}`);
      }
      const count = await hostGit(["rev-list", "--count", `${input.base}..${head}`], {
        cwd: scratch,
      });
      return Number(count.stdout.trim());
    });
    return { kind: "verified", head, commits };
  } catch (error) {
    await rm(input.bundle, { force: true });
    return { kind: "refused", error: `changes.bundle was refused: ${errorText(error)}` };
  }
}
