// What a task sees of the user's repository: the start commit, never the working tree. A
// command agent whose program is a relative path (`-- ./my-agent.sh`) runs the file of that
// commit, so the program is looked up there before a task is made; and the changes the working
// tree holds beyond the commit are counted, so `run` can say that the task will not see them.
import { cleanLine } from "../protocol/index.js";
import { CommandNotCommittedError, DirectoryNotCommittedError } from "./errors.js";
import { hostGit } from "./hostGit.js";

/** The committed program of a command, when its first word is a relative path. */
export interface CommittedProgram {
  /** The program as the command names it. */
  readonly program: string;
  /** Its mode in the commit (`100755`, `100644`, `120000`); undefined when it is not there. */
  readonly mode: string | undefined;
}

/** Git's mode of an executable file. */
const EXECUTABLE = "100755";
/** Git's mode of a symbolic link: followed inside the sandbox, so taken as it is. */
const SYMLINK = "120000";

/**
 * The command's program when it is a path relative to where the agent runs: it has a `/` and
 * does not start with one. A bare name is looked up on PATH inside the sandbox; an absolute
 * path is the host's file, bound into the sandbox. Pure.
 */
export function relativeProgram(command: readonly string[] | undefined): string | undefined {
  const program = command?.[0];
  if (program === undefined || program.startsWith("/") || !program.includes("/")) return undefined;
  return program;
}

/** Looks the program up in the commit, relative to `dir` (the directory the user named). */
export async function committedProgram(
  dir: string,
  base: string,
  program: string,
): Promise<CommittedProgram> {
  try {
    // ls-tree reads paths relative to the directory git runs in, as the agent's cwd does.
    const out = await hostGit(["ls-tree", "--end-of-options", base, "--", program], { cwd: dir });
    const mode = /^(\d{6}) blob /.exec(out.stdout)?.[1];
    return { program, mode };
  } catch {
    // A path outside the repository (`../x.sh`) is not in the commit either.
    return { program, mode: undefined };
  }
}

/** Refuses a command whose relative program the task would not find, or could not run. Pure. */
export function checkCommittedProgram(found: CommittedProgram, base: string): void {
  const program = cleanLine(found.program);
  const commit = base.slice(0, 12);
  if (found.mode === undefined) {
    throw new CommandNotCommittedError(
      `${program} is not in commit ${commit}: the agent runs in a clone of the commit, so paths in its command refer to the committed tree, not to your working tree`,
      {
        hint: `commit it first (git add ${program} && git commit), or give the program's absolute path`,
      },
    );
  }
  if (found.mode !== EXECUTABLE && found.mode !== SYMLINK) {
    throw new CommandNotCommittedError(
      `${program} is in commit ${commit} without its executable bit, so the agent cannot run it`,
      {
        hint: `commit it executable (git update-index --chmod=+x ${program} && git commit), or run it through its interpreter (-- sh ${program})`,
      },
    );
  }
}

/**
 * Whether `git ls-tree -z` output names `path` as a directory (a tree entry): a link committed in
 * its place, a file, or nothing at all is not one. Pure.
 */
export function namesTree(lsTree: string, path: string): boolean {
  return lsTree.split("\0").some((record) => {
    const tab = record.indexOf("\t");
    return (
      tab > 0 && record.slice(tab + 1) === path && record.slice(0, tab).split(" ")[1] === "tree"
    );
  });
}

/**
 * Refuses a task whose agent is to run in a directory (`--repo` named a subdirectory of the
 * repository) that the start commit does not hold: the agent runs in a clone of the commit, so
 * a directory only the working tree has is not there. `workdir` is relative to the top.
 */
export async function checkCommittedDirectory(
  repo: string,
  base: string,
  workdir: string,
): Promise<void> {
  let out = "";
  try {
    ({ stdout: out } = await hostGit(
      ["ls-tree", "-z", "--full-tree", "--end-of-options", base, "--", workdir],
      { cwd: repo },
    ));
  } catch {
    // A tree git cannot read for this path holds no directory there either.
  }
  if (namesTree(out, workdir)) return;
  throw new DirectoryNotCommittedError(
    `the directory ${cleanLine(workdir)} the agent is to run in is not in commit ${base.slice(0, 12)}: the agent runs in a clone of the commit, not in your working tree`,
    {
      hint: "commit the directory first, or run from (or pass --repo) a directory the commit has, such as the repository's top",
    },
  );
}

/** What the working tree holds beyond the commit it is at. */
export interface WorkingTreeChanges {
  /** The commit the working tree is at (HEAD); undefined on an unborn branch. */
  readonly head: string | undefined;
  /** Tracked files changed, staged or not, and conflicts. */
  readonly changed: number;
  /** Files git does not track and does not ignore. */
  readonly untracked: number;
  /** Paths among them, as git prints them, for a message that names what is meant. */
  readonly paths: readonly string[];
}

/** How many paths a working tree's changes name. */
const NAMED_PATHS = 3;

/**
 * The fields before the path in each kind of entry of `git status --porcelain=v2`: changed (1),
 * renamed or copied (2), unmerged (u), untracked (?).
 */
const FIELDS_BEFORE_PATH: Readonly<Record<string, number>> = {
  "1 ": 8,
  "2 ": 9,
  "u ": 10,
  "? ": 1,
};

/** Reads `git status --porcelain=v2 --branch`. Pure. */
export function parseStatus(text: string): WorkingTreeChanges {
  let head: string | undefined;
  let changed = 0;
  let untracked = 0;
  const paths: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("# branch.oid ")) {
      const oid = line.slice("# branch.oid ".length).trim();
      head = oid === "(initial)" ? undefined : oid;
    } else {
      const before = FIELDS_BEFORE_PATH[line.slice(0, 2)];
      if (before === undefined) continue;
      if (line.startsWith("? ")) untracked++;
      else changed++;
      // A path may hold spaces, so it is everything after the entry's fixed fields; a rename
      // ends in `<TAB>` and the path it had.
      const path = line.split(" ").slice(before).join(" ").split("\t")[0] ?? "";
      if (paths.length < NAMED_PATHS && path !== "") paths.push(path);
    }
  }
  return { head, changed, untracked, paths };
}

/** The working tree's changes beyond its commit; git's `status` never writes the index here. */
export async function workingTreeChanges(dir: string): Promise<WorkingTreeChanges> {
  const out = await hostGit(
    ["status", "--porcelain=v2", "--branch", "--untracked-files=normal", "--ignore-submodules"],
    { cwd: dir },
  );
  return parseStatus(out.stdout);
}
