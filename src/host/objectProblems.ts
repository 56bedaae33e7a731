// What git's strict object check says about a pack it refuses, read into problems a person can
// act on: which object, git's message id for the problem (hasDotgit, gitmodulesUrl, ...), what
// that means for their repository, and git's own words, cleaned.
import { HOST_LIMITS } from "./limits.js";
import { shortText } from "./reporter.js";

/** One problem git's fsck reported for one object of a pack. */
export interface ObjectProblem {
  oid: string;
  /** git's fsck message id, such as `hasDotgit` or `badTimezone`. */
  id: string;
  /** git's description, as git wrote it (it may quote the sandbox's text). */
  gitText: string;
}

// index-pack reports each problem as `error: object <oid>: <msgId>: <text>`.
const PROBLEM_LINE = /^error: object ([0-9a-f]{40}|[0-9a-f]{64}): ([A-Za-z]+): (.*)$/;
// The line git ends with when it gives up on a pack for another reason (a missing object).
const FATAL_LINE = /^fatal: (.*)$/;

/**
 * What each problem git's fsck can find means for the user, for the problems a hostile sandbox
 * would use: a path that writes into `.git`, a `.gitmodules` that makes git run a command, and
 * the malformed commit headers other tools read differently from git.
 */
const MEANINGS: Readonly<Record<string, string>> = {
  hasDotgit:
    "a path named .git, or a name some filesystem reads as .git (such as .GIT or GIT~1), which a checkout would write into git's own directory",
  hasDotdot: "a path with a '..' part, which a checkout would write outside the working tree",
  hasDot: "a path with a '.' part",
  fullPathname: "a tree entry whose name is a whole path",
  emptyName: "a tree entry with no name",
  duplicateEntries: "a tree with the same name twice",
  treeNotSorted: "a tree whose entries are out of order",
  gitmodulesUrl:
    "a .gitmodules URL git refuses: one that starts with '-' is read as a command-line option",
  gitmodulesPath:
    "a .gitmodules path that starts with '-', which git would read as a command-line option",
  gitmodulesName: "a .gitmodules submodule name that could reach outside .git/modules",
  gitmodulesUpdate:
    "a .gitmodules 'update = !command', which runs that command on `git submodule update`",
  gitmodulesSymlink:
    "a .gitmodules that is a symbolic link, which could make git read a file outside the repository",
  gitmodulesBlob: "a .gitmodules that is not a file",
  gitmodulesLarge: "a .gitmodules too large for git to check",
  gitmodulesMissing: "a .gitmodules whose content is not in the changes",
  badTimezone: "a malformed commit: its time zone is not one git reads",
  badDate: "a malformed commit: its date is not one git reads",
  badDateOverflow: "a malformed commit: its date is out of range",
  zeroPaddedDate: "a malformed commit: its date has leading zeros",
  badEmail: "a malformed commit: an email git does not read",
  badName: "a malformed commit: a name git does not read",
  missingAuthor: "a malformed commit: it has no author",
  missingCommitter: "a malformed commit: it has no committer",
  multipleAuthors: "a malformed commit: it has more than one author",
  missingEmail: "a malformed commit: an author or committer without an email",
  missingNameBeforeEmail: "a malformed commit: an author or committer without a name",
  missingSpaceBeforeDate: "a malformed commit: an author or committer line git does not read",
  missingSpaceBeforeEmail: "a malformed commit: an author or committer line git does not read",
  nulInHeader: "a malformed commit or tag: a NUL byte in its header",
  nulInCommit: "a malformed commit: a NUL byte in its message",
  unterminatedHeader: "a malformed object: its header does not end",
};

/** The problems in git's stderr, in its order. Lines of any other shape are left out. */
export function readObjectProblems(stderr: string): ObjectProblem[] {
  const problems: ObjectProblem[] = [];
  for (const line of stderr.split("\n")) {
    const match = PROBLEM_LINE.exec(line);
    const [, oid, id, gitText] = match ?? [];
    if (oid !== undefined && id !== undefined && gitText !== undefined) {
      problems.push({ oid, id, gitText });
    }
  }
  return problems;
}

function describeProblem(problem: ObjectProblem): string {
  const meaning = MEANINGS[problem.id];
  const said = shortText(problem.gitText, HOST_LIMITS.objectProblemBytes);
  return meaning === undefined
    ? `object ${problem.oid}: ${problem.id} (git: ${said})`
    : `object ${problem.oid}: ${problem.id}, ${meaning} (git: ${said})`;
}

/**
 * Why git refused a pack, from what it wrote on stderr: the problems its fsck found (at most
 * HOST_LIMITS.objectProblemsNamed of them, the rest counted), else the line it gave up with.
 * The text is one clean line.
 */
export function describeRefusal(stderr: string): string {
  const problems = readObjectProblems(stderr);
  if (problems.length > 0) {
    const named = problems.slice(0, HOST_LIMITS.objectProblemsNamed).map(describeProblem);
    const rest = problems.length - named.length;
    if (rest > 0) named.push(`and ${rest} more`);
    return named.join("; ");
  }
  const fatal = stderr
    .split("\n")
    .map((line) => FATAL_LINE.exec(line)?.[1])
    .find((text) => text !== undefined);
  const said = fatal ?? stderr.trim();
  return said === ""
    ? "git gave no reason"
    : `git says: ${shortText(said, HOST_LIMITS.objectProblemBytes)}`;
}
