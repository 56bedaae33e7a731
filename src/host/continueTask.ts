// `warden continue`: a new task that goes on from a finished one, from its verified head with its
// agent's session resumed, so the agent remembers the conversation. The new task is the old
// one's child (`--fork`: a root of its own). Its first attach resumes the session the old task's
// last checkpoint kept, with the new prompt as the message it resumes with.
import { copyFile, mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { DeadlineInput, Tasks, TaskSummary } from "../store/index.js";
import { checkBeforeCreate, type CreateChecks } from "./checkBeforeCreate.js";
import {
  CHECKPOINT_DIRS,
  CHECKPOINT_FILES,
  keepNext,
  readCheckpoint,
  writeManifest,
  type KeptCheckpoint,
} from "./checkpoints/checkpointFiles.js";
import {
  NoSessionError,
  NotAHostTaskError,
  noHostSettings,
  TaskNotFinishedError,
} from "./errors.js";
import { fetchTask } from "./fetchTask.js";
import { hostGit } from "./hostGit.js";
import { taskLayout } from "./taskLayout.js";

export interface ContinueInput {
  /** What the agent is to do next, in the same conversation. */
  readonly prompt: string | Uint8Array;
  /** A root of its own instead of the old task's child. */
  readonly fork?: boolean;
  readonly deadline?: DeadlineInput;
}

/** Whether the repository holds `commit`. */
async function holds(repo: string, commit: string): Promise<boolean> {
  try {
    await hostGit(["cat-file", "-e", `${commit}^{commit}`], { cwd: repo });
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates the continuation, created and not started, as `warden create` leaves a task. With
 * `checks`, what running it needs of this host is checked first.
 */
export async function continueTask(
  tasks: Tasks,
  ref: string,
  input: ContinueInput,
  checks?: CreateChecks,
): Promise<TaskSummary> {
  const details = await tasks.get(ref);
  const { id, spec, terminal } = details;
  if (terminal === undefined) {
    throw new TaskNotFinishedError(
      `task ${id} is ${details.state}: only a finished task's conversation can be continued`,
      { hint: `wait for it with \`warden wait ${id}\`, or send it a message with \`warden send\`` },
    );
  }
  const { repo, base } = spec;
  if (repo === undefined || base === undefined) {
    throw new NotAHostTaskError(noHostSettings(id, "its spec names no repository or start commit"));
  }
  const kept = await readCheckpoint(taskLayout(tasks.dataDir, id).dir);
  if (kept?.session === undefined || kept.manifest.sessionId === undefined) {
    throw new NoSessionError(`task ${id} kept no session of its agent, so it cannot go on`);
  }
  const head = await verifiedHead(tasks, id, repo, base, terminal.details ?? {});
  const beforeWrite =
    checks === undefined
      ? undefined
      : () => checkBeforeCreate(spec.settings, { repo, base: head }, checks);
  const fork = input.fork === true;
  const summary = await tasks.create(
    {
      prompt: input.prompt,
      repo,
      base: head,
      settings: spec.settings,
      labels: spec.labels,
      parent: fork ? null : id,
      ...(input.deadline === undefined ? {} : { deadline: input.deadline }),
    },
    { beforeWrite, continuation: !fork },
  );
  await keepSession(taskLayout(tasks.dataDir, summary.id).dir, kept, id, head);
  return summary;
}

/**
 * The head the old task's verified changes end at, in the repository (fetched as its default
 * branch when the repository does not hold it yet); its base when it changed nothing.
 */
async function verifiedHead(
  tasks: Tasks,
  id: string,
  repo: string,
  base: string,
  facts: Record<string, unknown>,
): Promise<string> {
  if (facts.changes !== true || typeof facts.head !== "string") return base;
  if (await holds(repo, facts.head)) return facts.head;
  return (await fetchTask(tasks, id)).head;
}

/** The new task's first checkpoint: the old one's session, on the new base, changing nothing. */
async function keepSession(
  taskDir: string,
  kept: KeptCheckpoint,
  from: string,
  base: string,
): Promise<void> {
  const next = join(taskDir, CHECKPOINT_DIRS.next);
  await rm(next, { recursive: true, force: true });
  await mkdir(next, { mode: 0o700 });
  const session = join(next, CHECKPOINT_FILES.session);
  await copyFile(kept.session ?? "", session);
  await writeManifest(next, {
    version: 1,
    seq: 0,
    at: Date.now(),
    origin: "continue",
    from,
    attempt: 0,
    turn: 0,
    base,
    head: base,
    ...(kept.manifest.sessionId === undefined ? {} : { sessionId: kept.manifest.sessionId }),
    bundleBytes: 0,
    sessionBytes: (await stat(session)).size,
  });
  await keepNext(taskDir);
}
