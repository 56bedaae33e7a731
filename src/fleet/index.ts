// The fleet: a task store on NATS JetStream with the filesystem store's interface and rules.
export { FleetStore, type FleetOpenOptions } from "./fleetStore.js";
export { FleetAttachment } from "./fleetAttachment.js";
export { LeaseLostError, FleetContentionError } from "./errors.js";
export { FLEET_LIMITS, FLEET_TIMING, WORKER_LIMITS } from "./limits.js";
export { TASK_OBJECTS, FleetObjectError, putFile, getFile, listObjects } from "./taskObjects.js";
export { submitTask, checkFleetInput } from "./submitTask.js";
export {
  Worker,
  openWorkerDir,
  parseLabels,
  RESULT_OBJECT_NAMES,
  BadBaseBundleError,
  BadWorkerLabelError,
  WorkerBusyError,
  type WorkerNews,
  type TaskEnd,
} from "./worker/index.js";
