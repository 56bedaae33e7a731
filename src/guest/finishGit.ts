// Step 5 of the runner: the agent's work made into a branch and a bundle. Runs after every
// process of the agent is gone, under a deadline of its own.
import { constants } from "node:fs";
import { lstat, open, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage, randomHex } from "../lang/index.js";
import {
  LIMITS,
  RESULT_FILES,
  TASK_BRANCH,
  checkBundle,
  cleanLine,
  readBundleHeaderFile,
} from "../protocol/index.js";
import { BadChangesError, GitError, HistoryRewrittenError } from "./errors.js";
import {
  ancestorStep,
  bundleStep,
  commitStep,
  headStep,
  pointBranchStep,
  stageStep,
  stagedStep,
  statusStep,
} from "./gitSteps.js";
import { runGit, type GitContext } from "./runGit.js";

/** What finishing found out so far; filled step by step so a failure keeps what came before. */
export interface FinishReport {
  head?: string;
  leftovers: boolean;
  /** The agent's own HEAD, under the commit of its leftovers, when the runner made one. */
  agentHead?: string;
  /** Committing the leftovers failed: head is the agent's, and its uncommitted work is not in it. */
  leftoversFailed?: boolean;
  /** The path of changes.bundle, when there are changes and they passed every check. */
  bundle?: string;
  readonly warnings: string[];
}

/**
 * Puts the runner's own repository config back, replacing whatever the agent made of it (a
 * symbolic link included), and removes an index lock a killed git left behind. The config is
 * written beside the old one and renamed over it: a rename replaces a link rather than follow
 * it, and the last checkpoint's git, which may read the config meanwhile, finds one or the
 * other, never none.
 */
async function restoreRepository(workspace: string, config: Buffer): Promise<void> {
  const gitDir = join(workspace, ".git");
  const info = await lstat(gitDir).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) {
    throw new GitError("the workspace's .git directory is gone or was replaced by the agent", {
      hint: "the agent must work in the repository it was given",
    });
  }
  const restored = join(gitDir, `config.warden-${randomHex(8)}`);
  await writeFile(restored, config, { flag: "wx", mode: 0o644 });
  await rename(restored, join(gitDir, "config")).catch(async (error: unknown) => {
    await rm(restored, { force: true });
    throw error;
  });
  // Every process of the agent is gone, so a lock left now belongs to a git that was killed.
  await rm(join(gitDir, "index.lock"), { force: true });
}

/** What .git/HEAD holds when the task branch is checked out. */
const ON_TASK_BRANCH = `ref: ${TASK_BRANCH}\n`;

/** The start of a file inside .git, never through a link; undefined when it cannot be read. */
async function readGitFile(
  workspace: string,
  path: string,
  max: number,
): Promise<string | undefined> {
  let file;
  try {
    file = await open(join(workspace, ".git", path), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(max);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

/**
 * True when HEAD is the task branch itself, so the branch already is the head and need not be
 * pointed at it. A HEAD that is a link, or anything but that one line, says false.
 */
async function onTaskBranch(workspace: string): Promise<boolean> {
  return (await readGitFile(workspace, "HEAD", ON_TASK_BRANCH.length + 1)) === ON_TASK_BRANCH;
}

/** A loose ref's whole text: one object id and a newline. */
const LOOSE_REF = /^([0-9a-f]{40}|[0-9a-f]{64})\n$/;

/**
 * The head, read from the task branch's own file when HEAD is that branch and the file is one
 * object id, without a git call; else (a packed ref, a detached HEAD, anything else) from git.
 * A file that names no commit fails the ancestry check or the bundle after it, as a HEAD git
 * could not read fails here.
 */
async function readHead(git: GitContext): Promise<string> {
  if (await onTaskBranch(git.workspace)) {
    const text = await readGitFile(git.workspace, TASK_BRANCH, 66);
    const oid = text === undefined ? undefined : LOOSE_REF.exec(text)?.[1];
    if (oid !== undefined) return oid;
  }
  return (await runGit(git, headStep(git.workspace))).stdout.trim();
}

/**
 * Commits what the agent left uncommitted; true when there was something. The agent's own HEAD,
 * which the commit goes on top of, is read first into the report.
 */
async function commitLeftovers(git: GitContext, report: FinishReport): Promise<boolean> {
  const status = await runGit(git, statusStep(git.workspace));
  if (status.stdout === "") return false;
  await runGit(git, stageStep(git.workspace));
  const staged = await runGit(git, stagedStep(git.workspace), [0, 1]);
  if (staged.code === 0) return false;
  report.agentHead = await readHead(git);
  await runGit(git, commitStep(git.workspace));
  return true;
}

export async function finishGit(
  input: {
    git: GitContext;
    base: string;
    config: Buffer;
    scratch: string;
    progress: (line: string) => void;
    /** The bundle's file name in the scratch directory (default changes.bundle). */
    bundleName?: string;
  },
  report: FinishReport,
): Promise<void> {
  const { git, base } = input;
  const { workspace } = git;
  await restoreRepository(workspace, input.config);

  try {
    report.leftovers = await commitLeftovers(git, report);
    if (report.leftovers) input.progress("git: committed what the agent left uncommitted");
  } catch (error) {
    report.leftoversFailed = true;
    // The agent's own commits are still worth sending without its leftovers.
    report.warnings.push(
      `could not commit what the agent left uncommitted: ${errorMessage(error)}`,
    );
  }

  const head = await readHead(git);
  report.head = head;
  if (!(await onTaskBranch(workspace))) await runGit(git, pointBranchStep(workspace, head));
  if (head === base) {
    input.progress("git: no changes");
    return;
  }
  const ancestor = await runGit(git, ancestorStep(workspace, base, head), [0, 1]);
  if (ancestor.code === 1) {
    throw new HistoryRewrittenError(
      `the history was rewritten: the task's head ${head} does not descend from its base ${base}`,
    );
  }

  const file = join(input.scratch, input.bundleName ?? RESULT_FILES.changes);
  input.progress("git: bundle the changes");
  await runGit(git, bundleStep(workspace, base, file));
  const { size } = await stat(file);
  if (size > LIMITS.changesBytes) {
    await rm(file, { force: true });
    throw new BadChangesError(
      `the changes are ${size} bytes as a bundle, over the limit of ${LIMITS.changesBytes}`,
      { hint: "a task should make a change a person can review; split the work" },
    );
  }
  // The host checks the same; checking here too turns a refusal there into a clear error here.
  try {
    checkBundle(await readBundleHeaderFile(file), base);
  } catch (error) {
    await rm(file, { force: true });
    throw new BadChangesError(
      `the bundle of changes is not one the host takes: ${cleanLine(errorMessage(error))}`,
      { hint: "the agent's commits must build on the start commit alone" },
    );
  }
  report.bundle = file;
}
