// warden/host/checkpoints: the checkpoints a task's runs send at their turn boundaries, kept one
// at a time in the task's directory, and what an attach, a continuation and a diff take of them.
export { CheckpointReceiver, type CheckpointRequest } from "./checkpointReceiver.js";
export {
  readCheckpoint,
  CHECKPOINT_DIRS,
  CHECKPOINT_FILES,
  type CheckpointManifest,
  type KeptCheckpoint,
} from "./checkpointFiles.js";
export { shareCheckpoint, resumeOf, type SharedCheckpoint } from "./shareCheckpoint.js";
export { HOST_CHECKPOINT_LIMITS } from "./limits.js";

/** The event an attach records when it starts from a checkpoint. */
export const RESUMED_EVENT_TYPE = "resumed";
/** The event recorded for each checkpoint kept. */
export const CHECKPOINT_EVENT_TYPE = "checkpoint";
