// The git commands the runner runs, as data: pure functions from what is known to argv lists.
// Nothing here touches the disk, so the plan is tested on its own and the effects in runGit.ts.
import { posix } from "node:path";
import { BadShareError, TASK_BRANCH, TASK_BRANCH_SHORT, type Settings } from "../protocol/index.js";

/**
 * Each of the two git steps (preparing the workspace, and finishing it after the agent) must end
 * within this. Cloning or bundling a repository a person can review takes seconds; ten minutes
 * means the sandbox is starved or the repository is not one a task should run on.
 */
export const GIT_STEP_DEADLINE_MS = 10 * 60_000;

/** Who the runner's commits are by, and the agent's, when the settings name nobody. */
export const DEFAULT_IDENTITY = { name: "warden", email: "warden@localhost" } as const;

/** The message of the commit the runner makes of what the agent left uncommitted. */
export const LEFTOVERS_MESSAGE = "warden: commit what the agent left uncommitted";

export interface Identity {
  readonly name: string;
  readonly email: string;
}

/** One git invocation: what it is for (for progress and errors) and its arguments. */
export interface GitStep {
  readonly what: string;
  readonly args: readonly string[];
}

export function identityOf(settings: Settings): Identity {
  return {
    name: settings.gitName ?? DEFAULT_IDENTITY.name,
    email: settings.gitEmail ?? DEFAULT_IDENTITY.email,
  };
}

/**
 * The configuration every git call runs with, on the command line so that neither the
 * repository nor the agent can change it: no hooks, no file system monitor (both run programs),
 * no signing program, no automatic gc or maintenance (which would go on in the background while
 * the runner bundles), no global ignore or attributes file from wherever HOME points, and the
 * workspace trusted even when the sandbox mounted it owned by another user.
 */
export function safetyConfig(workspace: string): string[] {
  return [
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "commit.gpgSign=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "core.excludesFile=/dev/null",
    "core.attributesFile=/dev/null",
    `safe.directory=${workspace}`,
  ].flatMap((entry) => ["-c", entry]);
}

/** The full argv of a step, after the program name `git`. */
export function gitArgv(workspace: string, step: GitStep): string[] {
  return [...safetyConfig(workspace), ...step.args];
}

/**
 * The environment of every git call: built from nothing, so no GIT_DIR, GIT_WORK_TREE or
 * GIT_CONFIG_* of the runner's own leaks in; system and global config ignored; never a prompt;
 * replace refs ignored so the history bundled is the history that is there.
 */
export function gitEnvironment(path: string, home: string): Record<string, string> {
  return {
    PATH: path,
    HOME: home,
    LANG: "C",
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_NO_REPLACE_OBJECTS: "1",
  };
}

/**
 * Step 2 of the runner: clone the input bundle (without the sample hooks of a template) with
 * the identity written into the clone's own config, so the agent's commits carry it too; drop
 * the remote; switch to the task branch. `-C` rather than `-c` on switch, so that a bundle
 * whose HEAD already is the task branch works too.
 */
export function prepareSteps(input: {
  bundle: string;
  workspace: string;
  identity: Identity;
}): GitStep[] {
  const ws = ["-C", input.workspace];
  return [
    {
      what: "clone the input bundle",
      args: [
        "clone",
        "--quiet",
        "--template=",
        "--config",
        `user.name=${input.identity.name}`,
        "--config",
        `user.email=${input.identity.email}`,
        "--",
        input.bundle,
        input.workspace,
      ],
    },
    { what: "drop the remote", args: [...ws, "remote", "remove", "origin"] },
    {
      what: `switch to ${TASK_BRANCH_SHORT}`,
      args: [...ws, "switch", "--quiet", "-C", TASK_BRANCH_SHORT],
    },
  ];
}

/**
 * Step 2 of the runner when the share names a history repository instead of a bundle. The
 * workspace borrows the repository's objects (objects/info/alternates names them) rather than
 * copying them, so it holds the checkout and what the agent adds, never the history. No git
 * command reads the history repository as a repository (a clone would start upload-pack there,
 * which refuses a repository the sandbox's uid does not own); git only reads its objects.
 *
 * The workspace's repository is a handful of small files that the runner writes itself (what
 * `git init --template=`, two `git config` and `git update-ref` would write, without their four
 * processes): HEAD on the task branch, a config with the commit identity, the alternates, and
 * the branch at the base. One git call then checks out the base, which it names as
 * `<base>^{commit}`, so a base that is not a commit the history holds fails there.
 */
export interface HistoryPlan {
  /** The directories of the repository, parents first. */
  readonly dirs: readonly string[];
  /** The files of the repository, written after the directories; none may exist already. */
  readonly files: readonly { readonly path: string; readonly text: string }[];
  /** The repository's config as written, which finishGit puts back before it runs git. */
  readonly config: string;
  readonly checkout: GitStep;
}

/**
 * A value as git's config files quote it: inside double quotes, a backslash and a double quote
 * escaped. Names and emails never hold a control character (the settings refuse them), so no
 * other escape is needed; one that does is refused rather than written wrong.
 */
export function configValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(value)) {
    throw new BadShareError("the commit identity in task.json has a control character");
  }
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The config `git init` writes on Linux, with the commit identity added. */
export function workspaceConfig(objectFormat: "sha1" | "sha256", identity: Identity): string {
  const lines = [
    "[core]",
    `\trepositoryformatversion = ${objectFormat === "sha256" ? 1 : 0}`,
    "\tfilemode = true",
    "\tbare = false",
    "\tlogallrefupdates = true",
  ];
  if (objectFormat === "sha256") lines.push("[extensions]", "\tobjectformat = sha256");
  lines.push(
    "[user]",
    `\tname = ${configValue(identity.name)}`,
    `\temail = ${configValue(identity.email)}`,
  );
  return lines.join("\n") + "\n";
}

export function historyPlan(input: {
  repository: string;
  base: string;
  workspace: string;
  identity: Identity;
}): HistoryPlan {
  const git = posix.join(input.workspace, ".git");
  const format = input.base.length === 64 ? "sha256" : "sha1";
  const config = workspaceConfig(format, input.identity);
  const branchDirs = posix.dirname(TASK_BRANCH).split("/");
  return {
    dirs: [
      git,
      posix.join(git, "objects"),
      posix.join(git, "objects", "info"),
      posix.join(git, "objects", "pack"),
      posix.join(git, "refs", "tags"),
      ...branchDirs.map((_, i) => posix.join(git, ...branchDirs.slice(0, i + 1))),
    ],
    files: [
      { path: posix.join(git, "HEAD"), text: `ref: ${TASK_BRANCH}\n` },
      { path: posix.join(git, "config"), text: config },
      {
        path: posix.join(git, "objects", "info", "alternates"),
        text: `${posix.join(input.repository, "objects")}\n`,
      },
      { path: posix.join(git, TASK_BRANCH), text: `${input.base}\n` },
    ],
    config,
    checkout: {
      what: "check out the base",
      args: ["-C", input.workspace, "read-tree", "--reset", "-u", `${input.base}^{commit}`],
    },
  };
}

/** The commit HEAD is at (also the base, right after prepareSteps). */
export function headStep(workspace: string): GitStep {
  return {
    what: "read HEAD",
    args: ["-C", workspace, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"],
  };
}

/** Stages everything the agent left, ignored files excepted. */
export function stageStep(workspace: string): GitStep {
  return { what: "stage what the agent left", args: ["-C", workspace, "add", "--all"] };
}

/** Exits 1 when something is staged, 0 when the index matches HEAD. */
export function stagedStep(workspace: string): GitStep {
  return {
    what: "look for staged changes",
    args: ["-C", workspace, "diff", "--cached", "--quiet", "--no-ext-diff"],
  };
}

export function commitStep(workspace: string): GitStep {
  return {
    what: "commit what the agent left",
    args: ["-C", workspace, "commit", "--quiet", "--no-verify", "-m", LEFTOVERS_MESSAGE],
  };
}

/** Points the task branch at the head, whichever branch (or none) the agent left checked out. */
export function pointBranchStep(workspace: string, head: string): GitStep {
  return {
    what: `point ${TASK_BRANCH_SHORT} at HEAD`,
    args: ["-C", workspace, "update-ref", "-m", "warden: task head", TASK_BRANCH, head],
  };
}

/** Exits 0 when base is an ancestor of head, 1 when it is not. */
export function ancestorStep(workspace: string, base: string, head: string): GitStep {
  return {
    what: "check that the head descends from the base",
    args: ["-C", workspace, "merge-base", "--is-ancestor", base, head],
  };
}

/** The changes as a bundle of the task branch with the base as its only prerequisite. */
export function bundleStep(workspace: string, base: string, file: string): GitStep {
  return {
    what: "bundle the changes",
    args: ["-C", workspace, "bundle", "create", "--quiet", file, TASK_BRANCH, `^${base}`],
  };
}

/**
 * Lists what `git add --all` would stage (changes to tracked files, untracked files that are not
 * ignored, what is staged already): empty output means the agent left nothing uncommitted, so
 * the add, the look at the index and the commit are not run at all.
 */
export function statusStep(workspace: string): GitStep {
  return {
    what: "look for what the agent left uncommitted",
    args: ["-C", workspace, "status", "--porcelain", "-z", "--no-renames"],
  };
}
