// warden/host: runs one task end to end (share, sandbox, receive, verify, record) and brings its
// changes home (fetch, diff). The CLI's verbs are thin layers over this.
export { createTask, type CreateTaskInput, type CreatedTask } from "./createTask.js";
export { executeTask, type ExecuteOptions, type ExecuteOutcome } from "./executeTask.js";
export {
  fetchTask,
  diffTask,
  defaultBranch,
  type FetchOptions,
  type FetchedTask,
  type DiffOptions,
  type TaskDiff,
} from "./fetchTask.js";
export { decideEnd, type EndFacts, type ResultFacts } from "./decideEnd.js";
export { dueReason, StopTriggers, type StopReason } from "./stopTriggers.js";
export { verifyChanges, type BundleFacts, type VerifyInput } from "./verifyChanges.js";
export {
  makeReporter,
  shortText,
  SILENT_REPORTER,
  type Reporter,
  type ReporterOptions,
} from "./reporter.js";
export { doctorReport, type DoctorReport, type AgentReport, type Check } from "./doctor.js";
export {
  readHostSettings,
  hostSettings,
  guestSettings,
  SANDBOX_CHOICES,
  type HostSettings,
  type SandboxChoice,
} from "./hostSettings.js";
export { checkEnvNames, agentVariables } from "./agentVariables.js";
export { taskLayout, HOST_FILES, type TaskLayout } from "./taskLayout.js";
export { HOST_LIMITS, hostLimitMs } from "./hostLimits.js";
export { GUEST_MAIN, TEST_GUEST_ENV, guestProgram, agentBinds } from "./guestProgram.js";
export { resolveStart, type TaskStart } from "./resolveStart.js";
export { hostGit, gitEnvironment, SAFE_GIT_CONFIG, HOST_GIT_TIMEOUT_MS } from "./hostGit.js";
export { fetchChanges, diffChanges, type FetchRequest } from "./fetchChanges.js";
export { writeShare, type ShareInput } from "./writeShare.js";
export { withScratchRepo, type ScratchRepoSource } from "./scratchRepo.js";
export {
  HostError,
  NotAHostTaskError,
  BadEnvNameError,
  MissingEnvError,
  RunnerMissingError,
  NoChangesError,
  TaskNotFinishedError,
  BadTaskOptionError,
  BadRepoError,
  BadObjectsError,
  BranchExistsError,
  BadBranchNameError,
  AgentMissingError,
  AgentUnusableError,
  NoApiKeyError,
  ApprovalUnavailableError,
  ChannelPathError,
} from "./errors.js";
export {
  startChannelServer,
  AGENT_EVENT_TYPE,
  type ChannelServerOptions,
  type RunningChannel,
  type ChannelCounts,
} from "./channelServer.js";
export { CONNECTION_LIMITS, type ChannelStats } from "./channelConnection.js";
export { checkAgentEvent } from "./agentEvents.js";
export {
  ApprovalDesk,
  DESK_PENDING_LIMIT,
  type ApprovalDeskOptions,
  type ApprovalAnswer,
} from "./approvalDesk.js";
export {
  judgeToolCall,
  NO_RULES,
  type ApprovalRules,
  type ApprovePolicy,
  type PolicyVerdict,
} from "./approvalPolicy.js";
export {
  parseToolRule,
  parseToolRules,
  ruleMatches,
  toolSubject,
  MAX_TOOL_RULES,
  MAX_TOOL_RULE_BYTES,
  type ToolRule,
} from "./toolRules.js";
export {
  findAgentProgram,
  programVersion,
  programBinds,
  DEV_AGENT_BIN,
  type AgentProgram,
  type ProgramSource,
} from "./agentProgram.js";
export { eventText, dollars } from "./eventText.js";
export {
  approvalPlan,
  relayFor,
  homeExposingBind,
  CHANNEL_SANDBOXES,
  type ApprovalPlan,
} from "./preflight.js";
export {
  CODEX_PLATFORMS,
  codexLayout,
  codexNativeCandidates,
  findCodexNative,
  isCodexLauncher,
  type CodexPlatform,
} from "./codexProgram.js";
