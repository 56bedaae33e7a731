// Creating a task: the whole directory is built under tmp/ and renamed into tasks/ in one step,
// so a task appears with its spec complete or not at all, and an existing one is never rewritten.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { link, mkdir, open, rename, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { FILE_MODE, syncDir } from "./atomicFile.js";
import type { StoreContext } from "./context.js";
import { currentTask, type CurrentTask } from "./envProtocol.js";
import {
  alreadyExists,
  BadTaskIdError,
  noSuchTask,
  notATaskId,
  SpecImmutableError,
  TaskNotFoundError,
} from "./errors.js";
import { ensureRealDir } from "./noFollow.js";
import { readCancelSync, readSpec, readTerminal } from "./readTask.js";
import { planSpec } from "./planSpec.js";
import type { StoredSpec } from "./spec.js";
import { TASK_FILES, type TaskPaths } from "./taskDir.js";
import { isTaskId } from "./taskId.js";
import type { CancelRequest } from "./terminalRecord.js";

export interface CreateOptions {
  /** Create under this id instead of a new one; an id that exists is refused (SPEC_IMMUTABLE). */
  id?: string;
  /**
   * The creator's own checks, run once the store has checked everything of its own and just
   * before it writes: a refusal there writes nothing, and the user's mistakes in the input are
   * reported before the creator's checks of the machine.
   */
  beforeWrite?: () => Promise<void>;
  /**
   * The new task continues its parent's finished conversation (`warden continue`): a parent that
   * has finished may have it, its hop is its parent's (the same work goes on), and its deadline
   * is its own, since the parent's has usually passed.
   */
  continuation?: boolean;
}

export async function writeNewFile(path: string, bytes: string): Promise<void> {
  const handle = await open(path, "wx", FILE_MODE);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a request file whole, unless one is there already: a temporary file linked into place,
 * so a reader never sees half of it and the first writer wins. Says whether it wrote it.
 */
export async function writeRequestOnce(
  paths: TaskPaths,
  target: string,
  request: unknown,
): Promise<boolean> {
  const temp = join(paths.dir, `.request.${randomBytes(6).toString("hex")}.tmp`);
  await writeNewFile(temp, JSON.stringify(request) + "\n");
  try {
    await link(temp, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(temp);
  }
}

/** Writes a cancel file whole, refused if one exists. */
export async function writeCancelFile(paths: TaskPaths, request: CancelRequest): Promise<boolean> {
  return writeRequestOnce(paths, paths.cancel, request);
}

/** The hop of the task this process runs in: from its spec, else from WARDEN_HOP. */
async function hopOf(ctx: StoreContext, current: CurrentTask): Promise<number> {
  try {
    return (await readSpec(ctx.paths(current.id))).hop;
  } catch (error) {
    if (error instanceof TaskNotFoundError) return current.hop;
    throw error;
  }
}

export async function createTask(
  ctx: StoreContext,
  value: unknown,
  options: CreateOptions = {},
): Promise<StoredSpec> {
  // The input's schema is zod's, which only creating a task needs: loaded here, on first use.
  const { checkSpecInput } = await import("./specInput.js");
  const input = checkSpecInput(value);
  const now = ctx.now();
  const current = currentTask(ctx.env);

  const id = options.id ?? ctx.ids.next();
  if (!isTaskId(id)) throw new BadTaskIdError(notATaskId(id, "it is not a ULID in lowercase"));
  const paths = ctx.paths(id);
  if (existsSync(paths.dir)) throw new SpecImmutableError(alreadyExists(id));

  // The parent: given, or the task this process runs in; null asks for a root.
  const parentId = input.parent === null ? null : (input.parent ?? current?.id ?? null);
  let parent: StoredSpec | undefined;
  if (parentId !== null) {
    try {
      parent = await readSpec(ctx.paths(parentId));
    } catch (error) {
      if (error instanceof TaskNotFoundError) {
        throw new TaskNotFoundError(noSuchTask(parentId, "parent task"));
      }
      throw error;
    }
  }
  const parentPaths = parent === undefined ? undefined : ctx.paths(parent.id);
  const spec = planSpec(input, {
    id,
    now,
    parent,
    parentFinished: parentPaths !== undefined && (await readTerminal(parentPaths)) !== undefined,
    parentCancelling: parentPaths !== undefined && readCancelSync(parentPaths) !== undefined,
    // A root made from inside a task still hands that task's work on, so its hop counts too.
    currentHop:
      parent !== undefined || current === undefined ? undefined : await hopOf(ctx, current),
    continuation: options.continuation === true,
  });
  await options.beforeWrite?.();

  const staging = join(ctx.stagingDir, `${id}.${randomBytes(6).toString("hex")}`);
  await mkdir(staging, { mode: 0o700 });
  let childEntry: string | undefined;
  try {
    await writeNewFile(join(staging, TASK_FILES.spec), JSON.stringify(spec) + "\n");
    await writeNewFile(join(staging, TASK_FILES.prompt), input.prompt);
    await syncDir(staging);
    if (parent !== undefined) {
      // The parent's index of children gets the entry first: a cancel that walks the tree
      // after this point finds the child, and a crash here leaves only an entry for nothing.
      const childrenDir = ctx.paths(parent.id).children;
      ensureRealDir(childrenDir);
      const entry = join(childrenDir, id);
      try {
        await writeNewFile(entry, "");
      } catch (error) {
        // Only a creator racing for the same explicit id under the same parent gets here.
        if ((error as NodeJS.ErrnoException).code === "EEXIST")
          throw new SpecImmutableError(alreadyExists(id));
        throw error;
      }
      childEntry = entry;
      await syncDir(childrenDir);
    }
    ctx.hooks.beforeRename?.(paths.dir);
    try {
      await rename(staging, paths.dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOTEMPTY" || code === "EEXIST")
        throw new SpecImmutableError(alreadyExists(id));
      throw error;
    }
    await syncDir(ctx.tasksDir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    if (childEntry !== undefined && !(error instanceof SpecImmutableError)) {
      await unlink(childEntry).catch(() => undefined);
    }
    throw error;
  }

  // A cancel of the parent that began after the check above may have walked the children
  // before this task appeared: then this task takes the parent's request itself.
  if (parent !== undefined) {
    const request = readCancelSync(ctx.paths(parent.id));
    if (request !== undefined) await writeCancelFile(paths, request);
  }
  return spec;
}
