// The workspace part of a checkpoint: everything since the base, committed or not, as a bundle
// of TASK_BRANCH. The work is done in a repository of the runner's own in the scratch directory,
// which borrows the workspace's objects: the agent's repository gains no ref, no object and no
// index change, so a checkpoint can never disturb what the agent is doing. Uncommitted work
// becomes a commit on top of the head (CHECKPOINT_WIP_MESSAGE) that only the bundle carries.
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CHECKPOINT_WIP_MESSAGE, TASK_BRANCH } from "../protocol/index.js";
import type { FinishReport } from "./finishGit.js";
import type { GitStep, Identity } from "./gitSteps.js";
import { runGit, type GitContext } from "./runGit.js";

/** What one checkpoint of the workspace came to. */
export interface WorkspaceCheckpoint {
  /** The commit the agent's HEAD was at. */
  readonly head: string;
  /** The commit of the uncommitted work on top of head, when there was any. */
  readonly tip?: string;
  /** The bundle of base..(tip or head); absent when that is the base itself. */
  readonly bundle?: string;
}

/**
 * The workspace part of the last checkpoint, read off what finishing the workspace's git made
 * once the agent was gone: its bundle of the task branch is the checkpoint's, and a commit of
 * the leftovers is the tip of uncommitted work on the agent's own head, which a resume puts back
 * as uncommitted changes. Undefined when finishing did not vouch for the whole workspace (it
 * failed, or could not commit the leftovers): the checkpoint then takes the workspace itself.
 * Pure.
 */
export function finishedCheckpoint(
  report: Readonly<FinishReport>,
  base: string,
): WorkspaceCheckpoint | undefined {
  const { head, bundle } = report;
  if (head === undefined || report.leftoversFailed === true) return undefined;
  if (!report.leftovers) {
    if (head === base) return { head };
    return bundle === undefined ? undefined : { head, bundle };
  }
  if (report.agentHead === undefined || bundle === undefined) return undefined;
  return { head: report.agentHead, tip: head, bundle };
}

export interface CheckpointRepo {
  /** The agent's repository (the task's own workspace). */
  readonly workspace: string;
  /** The runner's repository for checkpoints, in the scratch directory. */
  readonly repo: string;
  readonly base: string;
  readonly identity: Identity;
}

/** The steps of one checkpoint, as data. Pure. */
export function checkpointSteps(r: CheckpointRepo): {
  head: GitStep;
  add: GitStep;
  writeTree: GitStep;
  commit: (tree: string, head: string) => GitStep;
  point: (tip: string) => GitStep;
  bundle: (file: string) => GitStep;
} {
  const own = ["--git-dir", r.repo];
  return {
    // The head's commit and tree in one call: a line each.
    head: {
      what: "read the agent's HEAD for a checkpoint",
      args: ["-C", r.workspace, "rev-parse", "HEAD^{commit}", "HEAD^{tree}"],
    },
    add: {
      what: "take the workspace's files for a checkpoint",
      args: [...own, "--work-tree", r.workspace, "add", "--all", "--", "."],
    },
    writeTree: { what: "write the checkpoint's tree", args: [...own, "write-tree"] },
    commit: (tree, head) => ({
      what: "commit the uncommitted work for a checkpoint",
      args: [
        ...own,
        "-c",
        `user.name=${r.identity.name}`,
        "-c",
        `user.email=${r.identity.email}`,
        "commit-tree",
        tree,
        "-p",
        head,
        "-m",
        CHECKPOINT_WIP_MESSAGE,
      ],
    }),
    point: (tip) => ({
      what: "point the checkpoint's branch",
      args: [...own, "update-ref", TASK_BRANCH, tip],
    }),
    bundle: (file) => ({
      what: "bundle the checkpoint",
      args: [...own, "bundle", "create", "--quiet", file, TASK_BRANCH, `^${r.base}`],
    }),
  };
}

/**
 * Makes the runner's repository once: bare, the workspace's object format, borrowing the
 * workspace's objects (and, through them, whatever those borrow). Its index starts as a copy of
 * the workspace's, so that the first checkpoint's `add` reads only the files changed since the
 * checkout instead of every file of the repository; git still checks each entry's stat, so a
 * copied index can make a checkpoint slower but never wrong.
 */
export async function openCheckpointRepo(
  r: CheckpointRepo,
  git: Omit<GitContext, "workspace">,
): Promise<void> {
  const alternates = join(r.repo, "objects", "info", "alternates");
  const had = await readFile(alternates, "utf8").catch(() => undefined);
  if (had !== undefined) return;
  const [format = "", gitDir = join(r.workspace, ".git")] = (
    await runGit(
      { ...git, workspace: r.workspace },
      {
        what: "read the workspace's object format",
        args: ["-C", r.workspace, "rev-parse", "--show-object-format", "--absolute-git-dir"],
      },
    )
  ).stdout
    .trim()
    .split("\n");
  await mkdir(r.repo, { recursive: true, mode: 0o700 });
  await runGit(
    { ...git, workspace: r.repo },
    {
      what: "make the checkpoints' repository",
      args: [
        "init",
        "--quiet",
        "--bare",
        `--object-format=${format === "sha256" ? "sha256" : "sha1"}`,
        r.repo,
      ],
    },
  );
  await copyFile(join(gitDir, "index"), join(r.repo, "index")).catch(() => undefined);
  await mkdir(join(r.repo, "objects", "info"), { recursive: true });
  await writeFile(alternates, `${join(gitDir, "objects")}\n`);
}

/** Takes one checkpoint of the workspace into `file`. */
export async function checkpointWorkspace(
  r: CheckpointRepo,
  git: Omit<GitContext, "workspace" | "env"> & { readonly env: Readonly<Record<string, string>> },
  file: string,
): Promise<WorkspaceCheckpoint> {
  await openCheckpointRepo(r, git);
  const steps = checkpointSteps(r);
  // The index is the runner's own, kept between checkpoints so that git's stat cache spares it
  // reading every unchanged file again.
  const context: GitContext = {
    ...git,
    workspace: r.workspace,
    env: { ...git.env, GIT_INDEX_FILE: join(r.repo, "index") },
  };
  const run = async (step: GitStep): Promise<string> => (await runGit(context, step)).stdout.trim();
  // The head is read while the files are taken: neither reads what the other writes (the add
  // writes the runner's own index and objects only), and each is a git process of its own.
  const [headLines] = await Promise.all([run(steps.head), run(steps.add)]);
  const [head = "", headTree] = headLines.split("\n");
  const tree = await run(steps.writeTree);
  const tip = tree === headTree ? head : await run(steps.commit(tree, head));
  if (tip === r.base) return { head };
  await run(steps.point(tip));
  await run(steps.bundle(file));
  return { head, ...(tip === head ? {} : { tip }), bundle: file };
}
