// The repositories bound beside the task's own (--workspace): where each goes under the
// workspace root, how each is cloned (as the task's own is from a history repository), and how
// each is finished into its own bundle of changes.
//
// Layout: a task that binds no other repository is cloned at the root itself, as it always was.
// One that does has its own repository at `<root>/main` and each bound one at `<root>/<name>`,
// side by side, in binding order; the agent still starts in its own repository (`<root>/main`).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  MAIN_WORKSPACE,
  workspaceBundleName,
  type WorkspaceInput,
  type WorkspacesInput,
} from "../protocol/index.js";
import { finishGit, type FinishReport } from "./finishGit.js";
import { historyPlan, type Identity } from "./gitSteps.js";
import { runGit, type GitContext } from "./runGit.js";

/** A bound workspace and where it is cloned. */
export interface BoundWorkspace extends WorkspaceInput {
  readonly path: string;
}

export interface WorkspaceLayout {
  /** Where the task's own repository is cloned: the agent's working directory (or above it). */
  readonly main: string;
  readonly bound: readonly BoundWorkspace[];
}

/** Pure: where each repository goes under `root`. */
export function workspaceLayout(root: string, input: WorkspacesInput | undefined): WorkspaceLayout {
  if (input === undefined) return { main: root, bound: [] };
  return {
    main: join(root, MAIN_WORKSPACE),
    bound: input.workspaces.map((w) => ({ ...w, path: join(root, w.name) })),
  };
}

/** A bound workspace once cloned: its config as the runner wrote it, put back before finishing. */
export interface PreparedBound extends BoundWorkspace {
  readonly config: Buffer;
}

/**
 * Clones each bound workspace from its history repository, one after the other in binding
 * order, with the same plan as the task's own repository (historyPlan): the same safety config,
 * the same identity, on the task branch at its base.
 */
export async function prepareBound(input: {
  bound: readonly BoundWorkspace[];
  identity: Identity;
  git: Omit<GitContext, "workspace">;
  progress: (line: string) => void;
}): Promise<PreparedBound[]> {
  const prepared: PreparedBound[] = [];
  for (const workspace of input.bound) {
    const plan = historyPlan({
      repository: workspace.repository,
      base: workspace.base,
      workspace: workspace.path,
      identity: input.identity,
    });
    for (const dir of plan.dirs) mkdirSync(dir, { recursive: true });
    for (const file of plan.files) writeFileSync(file.path, file.text, { flag: "wx" });
    input.progress(`git: ${workspace.name}: ${plan.checkout.what}`);
    try {
      await runGit({ ...input.git, workspace: workspace.path }, plan.checkout);
    } catch (error) {
      throw named(workspace.name, error);
    }
    prepared.push({ ...workspace, config: Buffer.from(plan.config) });
  }
  return prepared;
}

/** What finishing one bound workspace found: its head, its leftovers, its bundle if it changed. */
export interface FinishedBound {
  readonly name: string;
  readonly base: string;
  readonly head?: string;
  readonly leftovers: boolean;
  /** The path of its bundle (workspaceBundleName), when it changed and passed every check. */
  readonly bundle?: string;
}

/**
 * Finishes each bound workspace as the task's own repository is finished (finishGit): its
 * config put back, leftovers committed, the task branch at its head, a bundle of base..head with
 * the base its only prerequisite. A failure of one is passed to `fail` and the others still
 * finish, so every workspace whose work is sound is sent.
 */
export async function finishBound(input: {
  prepared: readonly PreparedBound[];
  git: Omit<GitContext, "workspace">;
  scratch: string;
  warnings: string[];
  progress: (line: string) => void;
  fail: (error: unknown) => void;
}): Promise<FinishedBound[]> {
  const finished: FinishedBound[] = [];
  for (const workspace of input.prepared) {
    const report: FinishReport = { leftovers: false, warnings: input.warnings };
    let failed = false;
    try {
      await finishGit(
        {
          git: { ...input.git, workspace: workspace.path },
          base: workspace.base,
          config: workspace.config,
          scratch: input.scratch,
          progress: (line) => {
            input.progress(`${workspace.name}: ${line}`);
          },
          bundleName: workspaceBundleName(workspace.name),
        },
        report,
      );
    } catch (error) {
      failed = true;
      input.fail(named(workspace.name, error));
    }
    finished.push({
      name: workspace.name,
      base: workspace.base,
      leftovers: report.leftovers,
      // A workspace that failed to finish claims no head: the error says what became of it.
      ...(report.head === undefined || failed ? {} : { head: report.head }),
      ...(report.bundle === undefined ? {} : { bundle: report.bundle }),
    });
  }
  return finished;
}

/**
 * The error with the workspace it happened in said first, its class (and so its code) kept: a
 * failure of a bound workspace must not read as one of the task's own repository.
 */
function named(name: string, error: unknown): unknown {
  if (error instanceof Error) error.message = `workspace ${name}: ${error.message}`;
  return error;
}
