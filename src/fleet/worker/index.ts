// `warden worker`: runs the fleet's queued tasks on this machine with the host's own code.
export { Worker, type WorkerNews, type WorkerSettings } from "./worker.js";
export { openWorkerDir, workerPaths, type WorkerDir } from "./workerDir.js";
export { parseLabels, missingLabels, type Labels } from "./labels.js";
export { RESULT_OBJECT_NAMES } from "./resultObjects.js";
export { BadBaseBundleError, WorkerBusyError } from "./errors.js";
export type { TaskEnd } from "./workerTask.js";
