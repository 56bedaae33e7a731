// Step 2 of the runner: the workspace, cloned from the input bundle or the history repository the
// share names, and on the task branch.
import { mkdirSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
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
  if (from.kind === "history") {
    const plan = historyPlan({ ...from.history, workspace, identity: input.identity });
    // A dozen small writes, made synchronously: the runner has nothing else to do meanwhile,
    // and each would otherwise wait its turn in the thread pool.
    for (const dir of plan.dirs) mkdirSync(dir, { recursive: true });
    for (const file of plan.files) writeFileSync(file.path, file.text, { flag: "wx" });
    await run(plan.checkout);
    return { base: from.history.base, config: Buffer.from(plan.config) };
  }
  for (const step of prepareSteps({ bundle: from.path, workspace, identity: input.identity })) {
    await run(step);
  }
  const base = (await runGit(input.git, headStep(workspace))).stdout.trim();
  const config = await readFile(join(workspace, ".git", "config"));
  return { base, config };
}
