// What a worker keeps of a finished run in the fleet: the verified result files and the cleaned
// guest log, each under TASK_OBJECTS.result(id, attempt, name), uploaded before the terminal record is
// written, so a task that reads finished in the fleet has its results there.
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import type { ObjectStore } from "@nats-io/obj";
import { HOST_FILES } from "../../host/index.js";
import { RESULT_FILE_NAMES } from "../../protocol/index.js";
import { putFile, TASK_OBJECTS } from "../taskObjects.js";

/** The names a finished fleet task may have results under; a client reads these and no other. */
export const RESULT_OBJECT_NAMES: readonly string[] = [...RESULT_FILE_NAMES, HOST_FILES.guestLog];

/**
 * Uploads each of RESULT_OBJECT_NAMES that the local task's results directory holds as a regular
 * file (a link is never followed: the results directory is the host's, but a name there is not
 * proof of what it points at). Returns the names uploaded.
 */
export async function uploadResults(
  objects: ObjectStore,
  id: string,
  attempt: number,
  resultsDir: string,
): Promise<string[]> {
  const uploaded: string[] = [];
  for (const name of RESULT_OBJECT_NAMES) {
    const path = join(resultsDir, name);
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isFile() !== true) continue;
    await putFile(objects, TASK_OBJECTS.result(id, attempt, name), path);
    uploaded.push(name);
  }
  return uploaded;
}
