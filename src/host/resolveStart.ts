// Where a task starts: a repository and one commit in it, resolved by the host's own git.
import { realpath } from "node:fs/promises";
import { cleanLine, GitError, OID } from "../protocol/index.js";
import { BadRepoError } from "./errors.js";
import { hostGit } from "./hostGit.js";

export interface TaskStart {
  /** The repository's git directory, absolute and real (a bare repo's own directory). */
  gitDir: string;
  /** The directory the user named, absolute and real: where `fetch` imports the branch. */
  repo: string;
  /** The commit the task starts from. */
  base: string;
  /** The repository's hash: a scratch repository that borrows its objects must use the same. */
  objectFormat: "sha1" | "sha256";
  /**
   * Where the agent runs, relative to the repository's top, when `repo` is a directory below
   * the top: the task still checks out, and hands back, the whole repository.
   */
  workdir?: string;
}

/**
 * Resolves `from` (default HEAD) in `repo` to a commit. Refuses a shallow repository: the
 * bundle the guest gets would lack history, and the changes could not be checked against it.
 */
export async function resolveStart(repo: string, from = "HEAD"): Promise<TaskStart> {
  let real: string;
  try {
    real = await realpath(repo);
  } catch {
    throw new BadRepoError(`no such directory: ${cleanLine(repo)}`, {
      hint: "pass --repo PATH of a git repository",
    });
  }
  const atOnce = from.startsWith("-") ? undefined : await resolveAtOnce(real, from);
  if (atOnce !== undefined) return atOnce;
  let gitDir: string;
  let objectFormat: "sha1" | "sha256";
  let workdir: string | undefined;
  try {
    const out = await hostGit(
      [
        "rev-parse",
        "--absolute-git-dir",
        "--is-shallow-repository",
        "--show-object-format",
        "--show-prefix",
      ],
      {
        cwd: real,
      },
    );
    const [dir, shallow, format, prefix] = out.stdout.split("\n");
    if (dir === undefined) throw new GitError("no git dir");
    gitDir = dir;
    // git names the directory below the top with a slash at its end; at the top, nothing.
    workdir = prefix?.replace(/\/$/, "") || undefined;
    objectFormat = format === "sha256" ? "sha256" : "sha1";
    if (shallow === "true") {
      throw new BadRepoError(`${cleanLine(real)} is a shallow clone`, {
        hint: "run `git fetch --unshallow` in it first",
      });
    }
  } catch (error) {
    if (error instanceof BadRepoError) throw error;
    if (error instanceof GitError && /dubious ownership/.test(error.message)) {
      throw new BadRepoError(`git refuses ${cleanLine(real)}: it belongs to another user`, {
        hint: `if you trust it, run \`git config --global --add safe.directory ${cleanLine(real)}\``,
      });
    }
    throw new BadRepoError(`${cleanLine(real)} is not a git repository`, {
      hint: "pass --repo PATH of a git repository",
    });
  }
  if (from.startsWith("-")) {
    throw new BadRepoError(`bad revision: ${cleanLine(from)}`, {
      hint: "name a commit, branch or tag with --from",
    });
  }
  let base: string;
  try {
    const out = await hostGit(["rev-parse", "--verify", "--end-of-options", `${from}^{commit}`], {
      cwd: real,
    });
    base = out.stdout.trim();
  } catch {
    throw new BadRepoError(`${cleanLine(from)} is not a commit in ${cleanLine(real)}`, {
      hint: "name a commit, branch or tag with --from",
    });
  }
  if (!OID.test(base))
    throw new BadRepoError(`git gave a strange commit id for ${cleanLine(from)}`, {
      hint: "check the repository",
    });
  return { gitDir, repo: real, base, objectFormat, ...(workdir === undefined ? {} : { workdir }) };
}

/**
 * The start in one git call, when everything about it is as it should be; undefined otherwise
 * (not a repository, shallow, no such commit, anything odd), and then resolveStart asks again
 * step by step, to refuse in the words of the step that fails.
 */
async function resolveAtOnce(real: string, from: string): Promise<TaskStart | undefined> {
  let lines: string[];
  try {
    const out = await hostGit(
      [
        "rev-parse",
        "--absolute-git-dir",
        "--is-shallow-repository",
        "--show-object-format",
        "--show-prefix",
        "--verify",
        "--end-of-options",
        `${from}^{commit}`,
      ],
      { cwd: real },
    );
    lines = out.stdout.split("\n");
  } catch {
    return undefined;
  }
  const [gitDir, shallow, format, prefix, base] = lines;
  if (gitDir === undefined || shallow !== "false" || base === undefined || !OID.test(base)) {
    return undefined;
  }
  const workdir = prefix?.replace(/\/$/, "") || undefined;
  const objectFormat = format === "sha256" ? "sha256" : "sha1";
  return { gitDir, repo: real, base, objectFormat, ...(workdir === undefined ? {} : { workdir }) };
}
