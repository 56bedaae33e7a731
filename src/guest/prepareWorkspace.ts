// Step 2 of the runner: the workspace, cloned from the input bundle and on the task branch.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { headStep, prepareSteps, type Identity } from "./gitSteps.js";
import { runGit, type GitContext } from "./runGit.js";

export interface PreparedWorkspace {
  /** The commit the task starts from. */
  readonly base: string;
  /**
   * The repository's config as the runner left it. It is put back before the runner runs git
   * again, so nothing the agent configured (filters, signing, includes) runs in the runner's git.
   */
  readonly config: Buffer;
}

export async function prepareWorkspace(input: {
  bundle: string;
  identity: Identity;
  git: GitContext;
  progress: (line: string) => void;
}): Promise<PreparedWorkspace> {
  const { workspace } = input.git;
  for (const step of prepareSteps({ bundle: input.bundle, workspace, identity: input.identity })) {
    input.progress(`git: ${step.what}`);
    await runGit(input.git, step);
  }
  const base = (await runGit(input.git, headStep(workspace))).stdout.trim();
  const config = await readFile(join(workspace, ".git", "config"));
  return { base, config };
}
