// A throwaway bare repository that borrows a user's objects through objects/info/alternates.
// The host does its git work there, so nothing is ever written into the user's repository
// except the one branch `fetch` is asked to create.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { hostGit } from "./hostGit.js";

export interface ScratchRepoSource {
  /** The user's git directory (absolute). */
  gitDir: string;
  objectFormat: "sha1" | "sha256";
}

/** Runs `work` with the path of a scratch repository made under `parent`, then removes it. */
export async function withScratchRepo<T>(
  parent: string,
  source: ScratchRepoSource,
  work: (scratch: string) => Promise<T>,
): Promise<T> {
  const scratch = await mkdtemp(join(parent, ".scratch-"));
  try {
    // No templates: the user's init.templateDir could give the scratch repository a config
    // (an fsck setting) that git would then apply to what the sandbox sent.
    await hostGit(
      [
        "init",
        "--quiet",
        "--bare",
        "--template=",
        `--object-format=${source.objectFormat}`,
        scratch,
      ],
      {
        cwd: parent,
      },
    );
    await writeFile(
      join(scratch, "objects", "info", "alternates"),
      join(source.gitDir, "objects") + "\n",
    );
    return await work(scratch);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
