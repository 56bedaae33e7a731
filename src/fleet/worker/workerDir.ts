// The worker's own directory: a filesystem store for the local copies of the tasks it runs, and
// beside it the mirrors of their bases. It is under the data directory (`<data dir>/worker`), so
// the worker's copies never mix with the tasks a person runs on the same machine, and it is
// held by one worker at a time (worker.lock, an OS lock the kernel lets go of when the worker
// dies): what a worker finds there at its start is what a dead one left, and is removed.
import { openSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Tasks, tryFlock } from "../../store/index.js";
import { WorkerBusyError } from "./errors.js";

export interface WorkerDir {
  local: Tasks;
  mirrorsDir: string;
  /** The worker lock's descriptor: held open for the worker's life. */
  lockFd: number;
}

/** Pure: where a data directory's worker keeps its things. */
export function workerPaths(dataDir: string): { root: string; mirrors: string; lock: string } {
  const root = join(dataDir, "worker");
  return { root, mirrors: join(root, "mirrors"), lock: join(root, "worker.lock") };
}

/** Takes the worker's directory, and removes what a dead worker left there. */
export async function openWorkerDir(dataDir: string): Promise<WorkerDir> {
  const paths = workerPaths(dataDir);
  await mkdir(paths.root, { recursive: true, mode: 0o700 });
  const lockFd = openSync(paths.lock, "a", 0o600);
  if (!tryFlock(lockFd, "exclusive")) {
    throw new WorkerBusyError(`another worker uses ${paths.root}`);
  }
  const local = await Tasks.open({ dataDir: paths.root, env: {} });
  for (const task of await local.list()) await local.remove(task.id).catch(() => undefined);
  await rm(paths.mirrors, { recursive: true, force: true });
  await mkdir(paths.mirrors, { mode: 0o700 });
  return { local, mirrorsDir: paths.mirrors, lockFd };
}
