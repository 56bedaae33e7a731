// A fleet task's results on the client: each object the worker kept is downloaded, bounded, into
// a private temporary directory, and the changes bundle is verified there by the same code that
// verifies a local task's changes when its sandbox ends (header, git's strict object checks,
// descent from the base), against the client's own repository, before a diff is shown or a
// branch is made. The client trusts the worker no more than the host trusts the sandbox.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  defaultBranch,
  diffChanges,
  fetchChanges,
  HOST_FILES,
  NoChangesError,
  readHostSettings,
  TaskNotFinishedError,
  verifyChanges,
  type FetchedTask,
  type TaskDiff,
} from "../host/index.js";
import { cleanLine, cleanText, RESULT_FILES } from "../protocol/index.js";
import type { TaskDetails } from "../store/index.js";
import { FleetChangesRefusedError } from "./errors.js";
import type { FleetStore } from "./fleetStore.js";
import { FLEET_CLIENT_LIMITS } from "./limits.js";
import { getFile, TASK_OBJECTS } from "./taskObjects.js";

/** The results a client reads, each with the most bytes it takes of it. */
export const FLEET_RESULT_BOUNDS = {
  [RESULT_FILES.result]: FLEET_CLIENT_LIMITS.resultJsonBytes,
  [RESULT_FILES.changes]: FLEET_CLIENT_LIMITS.changesBundleBytes,
  [RESULT_FILES.transcript]: FLEET_CLIENT_LIMITS.guestLogBytes,
  [RESULT_FILES.log]: FLEET_CLIENT_LIMITS.guestLogBytes,
  [HOST_FILES.guestLog]: FLEET_CLIENT_LIMITS.guestLogBytes,
} as const;

export type FleetResultName = keyof typeof FLEET_RESULT_BOUNDS;

/** Runs `act` with a private directory of its own, removed after, however `act` ends. */
async function inPrivateDir<T>(act: (dir: string) => Promise<T>): Promise<T> {
  // mkdtemp makes the directory 0700: no other user of the machine can swap a file in it.
  const dir = await mkdtemp(join(tmpdir(), "warden-fleet-"));
  try {
    return await act(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Downloads the result `name` of a finished task, as the attempt that recorded its end kept it,
 * and runs `act` on its path.
 */
export async function withResult<T>(
  fleet: FleetStore,
  details: TaskDetails,
  name: FleetResultName,
  act: (path: string) => Promise<T>,
): Promise<T> {
  const object = resultObject(details, name);
  return inPrivateDir(async (dir) => {
    const path = join(dir, name);
    await getFile(fleet.objects, object, path, FLEET_RESULT_BOUNDS[name]);
    return act(path);
  });
}

/** The object name of a finished task's result `name`: the ending attempt's own. */
export function resultObject(details: TaskDetails, name: string): string {
  return TASK_OBJECTS.result(details.id, finished(details).attempts, name);
}

/** A finished task's end, or the refusal that it has none yet. */
function finished(details: TaskDetails): NonNullable<TaskDetails["terminal"]> {
  if (details.terminal === undefined) {
    throw new TaskNotFinishedError(
      `task ${details.id} is ${details.state}, so it has no results yet`,
    );
  }
  return details.terminal;
}

/** The head the worker says the task's changes end at; refused when it says there are none. */
function claimedHead(details: TaskDetails): string {
  const terminal = finished(details);
  const facts = terminal.details ?? {};
  if (facts.changes !== true || typeof facts.head !== "string") {
    const why =
      facts.changes === false
        ? "it changed nothing"
        : `it ended ${terminal.state} without changes its worker verified`;
    throw new NoChangesError(`task ${details.id} has no changes to fetch: ${why}`);
  }
  return facts.head;
}

interface VerifiedChanges {
  bundle: string;
  base: string;
  head: string;
  gitDir: string;
  objectFormat: "sha1" | "sha256";
  scratch: string;
}

/**
 * Downloads the task's changes bundle into a private directory, verifies it against this
 * client's repository, and runs `act` on it; refuses a bundle that fails, or that ends at
 * another head than the task's end record says.
 */
async function withVerifiedChanges<T>(
  fleet: FleetStore,
  details: TaskDetails,
  act: (changes: VerifiedChanges) => Promise<T>,
): Promise<T> {
  const head = claimedHead(details);
  const { id, spec } = details;
  const host = readHostSettings(id, spec.settings);
  if (spec.base === undefined) {
    throw new FleetChangesRefusedError(`task ${id} names no start commit`);
  }
  const base = spec.base;
  return withResult(fleet, details, RESULT_FILES.changes, async (bundle) => {
    const scratch = join(bundle, "..");
    const facts = await verifyChanges({
      bundle,
      base,
      gitDir: host.gitDir,
      objectFormat: host.objectFormat,
      scratchParent: scratch,
    });
    if (facts.kind === "none") {
      throw new NoChangesError(`task ${id} has no changes to fetch: its bundle is gone`);
    }
    if (facts.kind === "refused") {
      throw new FleetChangesRefusedError(`the changes of task ${id} were refused: ${facts.error}`);
    }
    if (facts.head !== head) {
      throw new FleetChangesRefusedError(
        `the changes of task ${id} end at ${cleanLine(facts.head)}, not at the head its end record names`,
      );
    }
    return act({
      bundle,
      base,
      head,
      gitDir: host.gitDir,
      objectFormat: host.objectFormat,
      scratch,
    });
  });
}

/** A fleet task's changes against its base, verified here first, cleaned for a terminal. */
export async function diffFleetTask(
  fleet: FleetStore,
  ref: string,
  options: { stat?: boolean } = {},
): Promise<TaskDiff> {
  const details = await fleet.get(ref);
  const terminal = finished(details);
  if (terminal.details?.changes === false && details.spec.base !== undefined) {
    return { id: details.id, base: details.spec.base, head: details.spec.base, diff: "" };
  }
  return withVerifiedChanges(fleet, details, async (changes) => {
    const { diff } = await diffChanges(
      changes,
      changes.scratch,
      options.stat === true ? ["--stat"] : [],
    );
    return { id: details.id, base: changes.base, head: changes.head, diff: cleanText(diff) };
  });
}

/** Imports a fleet task's changes, verified here first, into the repository as one branch. */
export async function fetchFleetTask(
  fleet: FleetStore,
  ref: string,
  options: { branch?: string; force?: boolean; repo?: string } = {},
): Promise<FetchedTask> {
  const details = await fleet.get(ref);
  const repo = options.repo ?? details.spec.repo;
  if (repo === undefined) {
    throw new FleetChangesRefusedError(`task ${details.id} names no repository`);
  }
  const branch = options.branch ?? defaultBranch(details.id);
  return withVerifiedChanges(fleet, details, async (changes) => {
    const head = await fetchChanges({
      ...changes,
      repo,
      branch,
      force: options.force === true,
      scratchParent: changes.scratch,
    });
    return { id: details.id, repo, branch, head };
  });
}
