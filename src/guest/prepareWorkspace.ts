// Step 2 of the runner: the workspace, cloned from the input bundle or the history repository the
// share names, and on the task branch.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { join } from "node:path";
import { BadShareError } from "../protocol/index.js";
import { headStep, historyPlan, prepareSteps, type GitStep, type Identity } from "./gitSteps.js";
import type { ShareInput } from "./readShare.js";
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
  input: ShareInput;
  identity: Identity;
  git: GitContext;
  progress: (line: string) => void;
}): Promise<PreparedWorkspace> {
  const { workspace } = input.git;
  const run = async (step: GitStep): Promise<void> => {
    input.progress(`git: ${step.what}`);
    await runGit(input.git, step);
  };
  const from = input.input;
  if (from.kind === "bundle") {
    for (const step of prepareSteps({ bundle: from.path, workspace, identity: input.identity })) {
      await run(step);
    }
  } else {
    const plan = historyPlan({ ...from.history, workspace, identity: input.identity });
    await run(plan.init);
    await mkdir(dirname(plan.alternates.path), { recursive: true });
    await writeFile(plan.alternates.path, plan.alternates.text, { flag: "wx" });
    for (const step of plan.steps) await run(step);
  }
  const base = (await runGit(input.git, headStep(workspace))).stdout.trim();
  if (from.kind === "history" && base !== from.history.base) {
    throw new BadShareError(
      `the history repository gave the commit ${base}, not the start commit ${from.history.base}`,
    );
  }
  const config = await readFile(join(workspace, ".git", "config"));
  return { base, config };
}
