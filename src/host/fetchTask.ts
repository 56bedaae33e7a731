// fetch and diff of a finished task: only a bundle the host verified when the task ended is
// used, and it is checked again (header, then every object with git's strict checks) before
// anything of it reaches the user's repo.
import { existsSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { cleanLine, cleanText, workspaceBundleName } from "../protocol/index.js";
import { isRealDir, refuseLink, type Tasks, type TaskDetails } from "../store/index.js";
import {
  BadRepoError,
  NoChangesError,
  NoSuchWorkspaceError,
  NotAHostTaskError,
  noHostSettings,
  TaskNotFinishedError,
} from "./errors.js";
import { diffChanges, fetchChanges, type ChangeCommit } from "./fetchChanges.js";
import { readHostSettings, type HostSettings } from "./hostSettings.js";
import { taskLayout } from "./taskLayout.js";
import { diffCheckpoint } from "./checkpoints/diffCheckpoint.js";

/** The branch a task's changes are fetched into unless --branch says otherwise. */
export function defaultBranch(id: string): string {
  return `warden/${id}`;
}

interface Changes {
  details: TaskDetails;
  host: HostSettings;
  repo: string;
  base: string;
  head: string;
  bundle: string;
}

/** The verified changes of a finished task, or why there are none. */
async function changesOf(tasks: Tasks, ref: string, workspace?: string): Promise<Changes> {
  const details = await tasks.get(ref);
  const { id, spec, terminal } = details;
  if (terminal === undefined) {
    // A task nobody runs would never finish for a wait: the hint says how to start it instead.
    const nobodyRuns = details.state === "created" || details.state === "interrupted";
    throw new TaskNotFinishedError(
      `task ${id} is ${details.state}, so it has no results yet`,
      nobodyRuns ? { hint: `start it with \`warden start ${id}\`, then wait for it` } : {},
    );
  }
  const host = readHostSettings(id, spec.settings);
  if (spec.repo === undefined || spec.base === undefined) {
    throw new NotAHostTaskError(noHostSettings(id, "its spec names no repository or start commit"));
  }
  if (workspace !== undefined) return boundChanges(tasks, details, host, workspace);
  const facts = terminal.details ?? {};
  const head = facts.head;
  if (facts.changes !== true || typeof head !== "string") {
    const why =
      facts.changes === false
        ? "it changed nothing"
        : `it ended ${terminal.state} without changes warden verified`;
    throw new NoChangesError(`task ${id} has no changes to fetch: ${why}`);
  }
  const layout = taskLayout(tasks.dataDir, id);
  // results/ must be the task's own directory: git reads the bundle by its path.
  const results = isRealDir(layout.results);
  const bundle = layout.result("changes.bundle");
  refuseLink(bundle);
  if (!results || !existsSync(bundle)) {
    throw new NoChangesError(`task ${id} has no changes to fetch: its changes.bundle is gone`);
  }
  return { details, host, repo: spec.repo, base: spec.base, head, bundle };
}

/**
 * The verified changes of the bound workspace `name` of a finished task: its repository, base
 * and git directory from the spec (the host resolved them when the task was made), whether it
 * changed from the terminal record (the host checked it when the task ended).
 */
function boundChanges(
  tasks: Tasks,
  details: TaskDetails,
  host: HostSettings,
  name: string,
): Changes {
  const { id, terminal } = details;
  const stored = (host.workspaces ?? []).find((w) => w.name === name);
  if (stored === undefined) {
    const names = (host.workspaces ?? []).map((w) => w.name);
    throw new NoSuchWorkspaceError(
      `task ${id} bound no workspace ${cleanLine(name)}` +
        (names.length === 0 ? "" : ` (its workspaces: ${names.join(", ")})`),
    );
  }
  const facts = boundFacts(details, name);
  if (facts?.changes !== true || typeof facts.head !== "string") {
    const why =
      facts?.changes === false && facts.refused !== true
        ? `it changed nothing in workspace ${name}`
        : `it ended ${terminal?.state ?? "unfinished"} without changes warden verified in workspace ${name}`;
    throw new NoChangesError(`task ${id} has no changes to fetch: ${why}`);
  }
  const layout = taskLayout(tasks.dataDir, id);
  const results = isRealDir(layout.results);
  const bundle = join(layout.results, workspaceBundleName(name));
  refuseLink(bundle);
  if (!results || !existsSync(bundle)) {
    throw new NoChangesError(
      `task ${id} has no changes to fetch: the bundle of workspace ${name} is gone`,
    );
  }
  return {
    details,
    host: { ...host, gitDir: stored.gitDir, objectFormat: stored.objectFormat },
    repo: stored.repo,
    base: stored.base,
    head: facts.head,
    bundle,
  };
}

/** The terminal record's facts of the bound workspace `name`, when the host recorded any. */
export function boundFacts(
  details: TaskDetails,
  name: string,
): { changes?: unknown; head?: unknown; refused?: unknown } | undefined {
  const list = details.terminal?.details?.workspaces;
  if (!Array.isArray(list)) return undefined;
  const found: unknown = list.find(
    (w: unknown) => typeof w === "object" && w !== null && (w as { name?: unknown }).name === name,
  );
  return typeof found === "object" && found !== null ? found : undefined;
}

export interface FetchOptions {
  /** The branch to create (default warden/<id>). */
  branch?: string;
  /** Overwrite the branch when it exists. */
  force?: boolean;
  /** A bound workspace's changes instead of the task's own repository's, into its repository. */
  workspace?: string;
  /** The repository to fetch into instead (it must hold the base). */
  repo?: string;
}

export interface FetchedTask {
  id: string;
  /** The bound workspace fetched, when it was one. */
  workspace?: string;
  repo: string;
  branch: string;
  head: string;
}

/** Imports a task's verified changes into its repository as one branch, and nothing else. */
export async function fetchTask(
  tasks: Tasks,
  ref: string,
  options: FetchOptions = {},
): Promise<FetchedTask> {
  const changes = await changesOf(tasks, ref, options.workspace);
  const id = changes.details.id;
  const branch = options.branch ?? defaultBranch(id);
  const repo = options.repo === undefined ? changes.repo : await realRepo(options.repo);
  const head = await fetchChanges({
    repo,
    gitDir: changes.host.gitDir,
    objectFormat: changes.host.objectFormat,
    bundle: changes.bundle,
    base: changes.base,
    branch,
    force: options.force === true,
    scratchParent: taskLayout(tasks.dataDir, id).dir,
  });
  return {
    id,
    repo,
    branch,
    head,
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
  };
}

/** The directory --repo names, absolute and real; refused when it is not there. */
async function realRepo(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    throw new BadRepoError(`no such directory: ${cleanLine(path)}`, {
      hint: "give fetch --repo the path of a git repository that holds the task's base",
    });
  }
}

export interface DiffOptions {
  /** `git diff --stat` instead of the patch. */
  stat?: boolean;
  /** List the task's commits too, each with its subject. */
  commits?: boolean;
  /** A bound workspace's changes instead of the task's own repository's. */
  workspace?: string;
}

export interface TaskDiff {
  id: string;
  base: string;
  head: string;
  /** The diff, cleaned: it is text the sandbox wrote. */
  diff: string;
  /** With the `commits` option: the task's commits, oldest first, each subject cleaned. */
  commits?: ChangeCommit[];
  /**
   * For a task that has not finished: the checkpoint the diff is of, and when it was kept. Its
   * head is the checkpoint's tip, uncommitted work included.
   */
  checkpoint?: { seq: number; at: number };
}

/**
 * The base of a finished task the host saw change nothing, if it is one: its diff is empty, an
 * answer rather than an error (fetch still refuses, since there is no branch to make).
 */
function unchangedBase(details: TaskDetails, workspace?: string): string | undefined {
  if (workspace !== undefined) {
    const facts = boundFacts(details, workspace);
    const stored = readHostSettings(details.id, details.spec.settings).workspaces?.find(
      (w) => w.name === workspace,
    );
    return facts?.changes === false && facts.refused !== true ? stored?.base : undefined;
  }
  const facts = details.terminal?.details ?? {};
  return facts.changes === false ? details.spec.base : undefined;
}

/** The task's changes against its base, made in a scratch repository, cleaned for a terminal. */
export async function diffTask(
  tasks: Tasks,
  ref: string,
  options: DiffOptions = {},
): Promise<TaskDiff> {
  const details = await tasks.get(ref);
  if (details.terminal === undefined && options.workspace === undefined) {
    return diffCheckpoint(tasks, details, options);
  }
  const base = unchangedBase(details, options.workspace);
  if (base !== undefined) {
    return {
      id: details.id,
      base,
      head: base,
      diff: "",
      ...(options.commits ? { commits: [] } : {}),
    };
  }
  const changes = await changesOf(tasks, details.id, options.workspace);
  const id = changes.details.id;
  const { diff, commits } = await diffChanges(
    {
      gitDir: changes.host.gitDir,
      objectFormat: changes.host.objectFormat,
      bundle: changes.bundle,
      base: changes.base,
    },
    taskLayout(tasks.dataDir, id).dir,
    options.stat === true ? ["--stat"] : [],
    options.commits === true,
  );
  return {
    id,
    base: changes.base,
    head: changes.head,
    diff: cleanText(diff),
    ...(options.commits === true
      ? { commits: commits.map((c) => ({ sha: cleanLine(c.sha), subject: cleanLine(c.subject) })) }
      : {}),
  };
}
