// warden/host: runs one task end to end (share, sandbox, receive, verify, record) and brings its
// changes home (fetch, diff). The CLI's verbs are thin layers over this.
export {
  createTask,
  type CreateTaskInput,
  type CreatePlacement,
  type CreatedTask,
} from "./createTask.js";
export { bundleBase } from "./bundleBase.js";
export { parseLabelWords, type Labels } from "./labelWords.js";
export { executeTask, type ExecuteOutcome } from "./executeTask.js";
export { trimHistoryCaches, type TrimOutcome } from "./historyCache/index.js";
export { SandboxCheckMemo, WorkspaceMeter } from "../sandbox/index.js";
export { keptSandboxChecks } from "./keptSandboxChecks.js";
export {
  fetchTask,
  diffTask,
  defaultBranch,
  type FetchOptions,
  type FetchedTask,
  type DiffOptions,
  type TaskDiff,
} from "./fetchTask.js";
export { fetchChanges, diffChanges } from "./fetchChanges.js";
export { verifyChanges } from "./verifyChanges.js";
export { rerunTask } from "./rerunTask.js";
export { continueTask, type ContinueInput } from "./continueTask.js";
export { resumeFromCheckpoint } from "./checkpoints/resumeFromCheckpoint.js";
export { makeReporter } from "./reporter.js";
export { doctorReport, apiChecks, apiKeyVariablesText } from "./doctor.js";
export type { ApiCheck, ApiVerdict } from "../egress/index.js";
export {
  readHostSettings,
  LABEL_NAME,
  MAX_REQUIRED_LABELS,
  MAX_LABEL_VALUE_BYTES,
  type SandboxChoice,
} from "./hostSettings.js";
export { taskLayout, HOST_FILES } from "./taskLayout.js";
export { hostGit } from "./hostGit.js";
export { unbundleStrictly } from "./unbundleStrictly.js";
export { SILENT_REPORTER, type Reporter } from "./reporter.js";
export { GUEST_MAIN } from "./guestProgram.js";
export { writeShare } from "./writeShare.js";
export {
  HostError,
  NotAHostTaskError,
  BadEnvNameError,
  MissingEnvError,
  RunnerMissingError,
  NoChangesError,
  TaskNotFinishedError,
  BadTaskOptionError,
  BadLabelError,
  BadRepoError,
  BadObjectsError,
  BranchExistsError,
  BadBranchNameError,
  AgentMissingError,
  AgentUnusableError,
  NoApiKeyError,
  ApprovalUnavailableError,
  ChannelPathError,
  MessagesNotTakenError,
  SpendRecordDamagedError,
  SpendLedgerBusyError,
  NoSessionError,
} from "./errors.js";
export { checkTakesMessages } from "./takesMessages.js";
export { AGENT_EVENT_TYPE } from "./channel/index.js";
export { OUTPUT_EVENT_TYPE } from "./channel/index.js";
export { findAgentProgram } from "./agentProgram.js";
export { eventText, dollars, spendText } from "./eventText.js";
export { listFacts, type ListFacts } from "./listFacts.js";
export { suspendWhenOf, suspendWhenText, type SuspendWhen } from "./suspendWhen.js";
export { suspendedTask } from "./suspendedTask.js";
export { relativeProgram, workingTreeChanges, type WorkingTreeChanges } from "./committedTree.js";
export { CommandNotCommittedError, DirectoryNotCommittedError } from "./errors.js";
export { API_FAILURE_EVENT_TYPE } from "./apiFailure.js";
export { taskSpend, BUDGET_EVENT_TYPE, USAGE_EVENT_TYPE, type SpendTotals } from "./taskSpend.js";
export { HistoryCacheBusyError, HistoryCacheError } from "./errors.js";
export { trimSetupCaches, type SetupTrimOutcome } from "./setupCache/index.js";
export { SETUP_EVENTS, SETUP_LOG } from "./setupEvents.js";
export { BadWorkspaceError, NoSuchWorkspaceError } from "./errors.js";
export {
  parseWorkspaceBinding,
  type WorkspaceBinding,
  type StoredWorkspace,
} from "./workspaceBindings.js";
export {
  BadMcpConfigError,
  BadSkillsError,
  McpHostNotAllowedError,
  McpNotTakenError,
  McpServerNameError,
  SkillsLinkError,
} from "./mcpErrors.js";
export { checkMcpServers, mergeMcpServers, parseMcpConfig, readMcpConfigs } from "./mcpConfig.js";
export {
  insideTarget,
  connectInside,
  runInside,
  releaseHold,
  exitStatus,
  FrameSocket,
  INSIDE_EVENTS,
  InsideNotAllowedError,
  InsideNotServingError,
  InsideSessionError,
  InsideCopyPathError,
  type InsideTarget,
  type SessionOutput,
} from "./inside/index.js";
