// --workspace NAME=PATH[@REV]: the repositories a task binds beside its own. The text is parsed
// by a pure function, then each repository and commit is resolved by the host's own git before
// the task is created, so a binding that cannot run is refused instead of stored.
import { resolve } from "node:path";
import {
  cleanLine,
  LIMITS,
  MAIN_WORKSPACE,
  workspaceNameProblem,
  type WorkspaceInput,
} from "../protocol/index.js";
import { BadRepoError, BadWorkspaceError } from "./errors.js";
import { resolveStart } from "./resolveStart.js";

/** One binding as the user wrote it. */
export interface WorkspaceBinding {
  readonly name: string;
  readonly path: string;
  /** The commit, branch or tag; absent: the repository's HEAD. */
  readonly rev?: string;
}

/** A bound workspace as the spec stores it: resolved on the host when the task was made. */
export interface StoredWorkspace {
  readonly name: string;
  /** The repository's directory, absolute and real: where fetch --workspace imports a branch. */
  readonly repo: string;
  /** Its git directory: where the host borrows objects from. */
  readonly gitDir: string;
  readonly objectFormat: "sha1" | "sha256";
  /** The commit the workspace starts from. */
  readonly base: string;
}

/**
 * Parses `NAME=PATH[@REV]`. The REV starts at the first `@` after the `=`, so a REV may hold an
 * `@` (`main@{1}`) and a PATH may not. A relative PATH is taken from `cwd`. Pure.
 */
export function parseWorkspaceBinding(text: string, cwd: string): WorkspaceBinding {
  const equals = text.indexOf("=");
  if (equals < 0) {
    throw new BadWorkspaceError(`--workspace ${cleanLine(text)} has no =`);
  }
  const name = text.slice(0, equals);
  const problem = workspaceNameProblem(name);
  if (problem !== undefined) {
    throw new BadWorkspaceError(
      `--workspace ${cleanLine(text)}: the name ${cleanLine(name)} cannot be a workspace's: ${problem}`,
    );
  }
  const rest = text.slice(equals + 1);
  const at = rest.indexOf("@");
  const path = at < 0 ? rest : rest.slice(0, at);
  const rev = at < 0 ? undefined : rest.slice(at + 1);
  if (path === "") throw new BadWorkspaceError(`--workspace ${cleanLine(text)} names no path`);
  if (rev !== undefined && rev === "") {
    throw new BadWorkspaceError(`--workspace ${cleanLine(text)} has an @ but no revision after it`);
  }
  return { name, path: resolve(cwd, path), ...(rev === undefined ? {} : { rev }) };
}

/** Refuses more bindings than a task may have and a name bound twice. Pure. */
export function checkBindings(bindings: readonly WorkspaceBinding[]): void {
  if (bindings.length > LIMITS.workspaces) {
    throw new BadWorkspaceError(
      `${bindings.length} workspaces were bound, over the limit of ${LIMITS.workspaces}`,
      { hint: "a piece of work that spans that many repositories is several tasks" },
    );
  }
  const seen = new Set<string>();
  for (const { name } of bindings) {
    if (seen.has(name)) {
      throw new BadWorkspaceError(`the workspace name ${name} is bound twice`, {
        hint: "give each --workspace a name of its own",
      });
    }
    seen.add(name);
  }
}

/**
 * Resolves every binding to a repository and one commit, in binding order, and refuses a
 * repository bound twice or the task's own bound again (each workspace comes back as a branch of
 * its own repository, so two of one repository would fetch into one branch).
 */
export async function resolveWorkspaces(
  bindings: readonly WorkspaceBinding[],
  main: { gitDir: string },
): Promise<StoredWorkspace[]> {
  checkBindings(bindings);
  const stored: StoredWorkspace[] = [];
  const gitDirs = new Map<string, string>([[main.gitDir, MAIN_WORKSPACE]]);
  for (const binding of bindings) {
    let start;
    try {
      start = await resolveStart(binding.path, binding.rev);
    } catch (error) {
      if (!(error instanceof BadRepoError)) throw error;
      throw new BadWorkspaceError(`workspace ${binding.name}: ${error.message}`, {
        hint:
          binding.rev === undefined
            ? "--workspace NAME=PATH needs PATH to be a git repository"
            : "--workspace NAME=PATH@REV needs REV to be a commit, branch or tag in PATH",
      });
    }
    const other = gitDirs.get(start.gitDir);
    if (other !== undefined) {
      throw new BadWorkspaceError(
        `workspace ${binding.name} is the repository ${cleanLine(start.repo)}, which ${other === MAIN_WORKSPACE ? "the task works on already" : `is bound as ${other} already`}`,
        { hint: "bind each repository once" },
      );
    }
    gitDirs.set(start.gitDir, binding.name);
    stored.push({
      name: binding.name,
      repo: start.repo,
      gitDir: start.gitDir,
      objectFormat: start.objectFormat,
      base: start.base,
    });
  }
  return stored;
}

/** What the share's workspaces.json says of one stored workspace, given its history repository. */
export function workspaceInput(workspace: StoredWorkspace, repository: string): WorkspaceInput {
  return {
    name: workspace.name,
    base: workspace.base,
    repository,
    source: workspace.repo,
  };
}
