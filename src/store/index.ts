// warden/store: the durable task store. A task is a directory; execution belongs to whoever
// holds its attach.lock; every other verb works on the files. See tasks.ts for each verb.
export {
  Tasks,
  type OpenOptions,
  type SendOptions,
  type CancelOptions,
  type ApproveOptions,
  type SuspendOptions,
} from "./tasks.js";
export type { SuspendOutcome } from "./suspendTask.js";
export {
  SUSPEND_REASONS,
  type SuspendReason,
  type SuspendRecord,
  type SuspendRequest,
} from "./suspension.js";
export { Attachment, type FinishOptions } from "./attachment.js";
export type { TaskStore, ActingAs, StoreSendOptions, StoreApproveOptions } from "./taskStore.js";
export type { TaskAttachment, Eventually, StoreFinishOptions } from "./taskAttachment.js";
export type { CreateOptions } from "./createTask.js";
export type { CancelOutcome } from "./cancelTask.js";
export type { WaitOptions, WaitOutcome } from "./waitTask.js";
export type { WatchOptions } from "./watchEvents.js";
export type { RemoveOptions, GcOptions, GcOutcome } from "./removeTask.js";
export { summaryOf, type TaskSummary, type TaskDetails, type ListFilter } from "./summary.js";
export { isExpired, TASK_STATES, type TaskState, type DerivedState } from "./state.js";
export {
  TERMINAL_STATES,
  STOPPED_BY,
  type TerminalState,
  type StoppedBy,
  type TerminalRecord,
  type CancelRequest,
  isTerminalRecord,
} from "./terminalRecord.js";
export type { TerminalInput } from "./buildTerminal.js";
export { MESSAGE_STATES, isInboxMessage, type InboxMessage, type MessageState } from "./inbox.js";
export { messageFileNameProblem, type MessageFile, type MessageFileInput } from "./messageFiles.js";
export { replyFilesDir, type ReplyFilePiece } from "./replyFiles.js";
export {
  STORE_EVENTS,
  NOTICE_RESERVE,
  checkExecutorEventType,
  eventLine,
  parseEventLine,
  type TaskEvent,
} from "./eventLog.js";
export {
  APPROVAL_DECISIONS,
  APPROVAL_ANSWERERS,
  type ApprovalDecision,
  type ApprovalAnswerer,
  type ApprovalRequest,
  type AwaitApprovalOptions,
  type ApprovalAnswer,
  planApproval,
  applyAnswer,
  isApprovalRequest,
} from "./approvals.js";
export type { ReplyOutcome, AwaitReplyOptions } from "./awaitReply.js";
export { taskSpecInputSchema, checkSpecInput, type TaskSpecInput } from "./specInput.js";
export { planSpec, type SpecFacts } from "./planSpec.js";
export { settlementOf, type Settlement } from "./settle.js";
export { buildTerminal } from "./buildTerminal.js";
export { checkBody } from "./inbox.js";
export { isTaskId, IdGenerator } from "./taskId.js";
export { uniquePrefix, shortIds } from "./shortIds.js";
export { resolveAmong, type TaskIds } from "./resolveId.js";
export { isStoredSpec, type TaskSpec, type StoredSpec } from "./spec.js";
export type { DeadlineInput } from "./deadline.js";
export { parseDuration } from "./deadline.js";
export { currentTask, taskEnvironment, type CurrentTask } from "./envProtocol.js";
export { resolveDataDir, removalPath, REMOVAL_NONCE_BYTES, type DataDirChoice } from "./dataDir.js";
export { TaskPaths } from "./taskDir.js";
export type { LockHolder, LockPurpose } from "./lockHolder.js";
export { writeFileAtomic, type StoreHooks } from "./atomicFile.js";
export { tryFlock, type LockMode } from "./flock.js";
export {
  cancelDecision,
  waitDecision,
  approveDecision,
  closesCycle,
  rootOf,
  type Lineage,
} from "./policy.js";
export { STORE_LIMITS, STORE_TIMING } from "./limits.js";
export { awaitTurn, type RunTurn, type TurnOptions } from "./runQueue.js";
export * from "./errors.js";
export {
  NO_FOLLOW,
  linkRefusal,
  openNoFollowSync,
  refuseLink,
  isRealDir,
  ensureRealDir,
} from "./noFollow.js";
export { arrayOf, int, matching, strictObject, text, type Shape } from "./recordShape.js";
export { userConfigPath } from "./userConfigPath.js";
