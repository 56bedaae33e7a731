// The fleet: a task store on NATS JetStream with the filesystem store's interface and rules.
export { FleetStore, specWaitMs, type FleetOpenOptions } from "./fleetStore.js";
export { FleetAttachment } from "./fleetAttachment.js";
export {
  LeaseLostError,
  FleetContentionError,
  FleetAuthError,
  FleetUnreachableError,
  FleetChangesRefusedError,
} from "./errors.js";
export {
  diffFleetTask,
  fetchFleetTask,
  withResult,
  resultObject,
  FLEET_RESULT_BOUNDS,
  type FleetResultName,
} from "./fleetResults.js";
export { FLEET_LIMITS, FLEET_TIMING, FLEET_CLIENT_LIMITS, WORKER_LIMITS } from "./limits.js";
export { authenticatorFor, serversText, type FleetCredentials } from "./fleetConnection.js";
export { TASK_OBJECTS, FleetObjectError, putFile, getFile, listObjects } from "./taskObjects.js";
export { submitTask, checkFleetInput } from "./submitTask.js";
export {
  Worker,
  openWorkerDir,
  parseLabels,
  RESULT_OBJECT_NAMES,
  BadBaseBundleError,
  WorkerBusyError,
  type WorkerNews,
  type TaskEnd,
} from "./worker/index.js";
