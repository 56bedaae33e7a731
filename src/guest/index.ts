// warden/guest: the runner inside the sandbox. `runTask` runs one task in process (tests use
// it); `main.ts` is the `warden-guest` command around it.
export { runTask, type RunTaskOptions, type TaskOutcome } from "./runTask.js";
export {
  parseOptions,
  USAGE,
  GUEST_ENV,
  DEFAULT_SHARE,
  DEFAULT_WORKSPACE,
  DEFAULT_KILL_GRACE_MS,
  type GuestOptions,
  type Invocation,
} from "./options.js";
export {
  UsageError,
  GitError,
  GitDeadlineError,
  HistoryRewrittenError,
  BadChangesError,
  AgentStartError,
  StoppedError,
  HostChannelError,
  ChannelRefusedError,
} from "./errors.js";
export {
  HostChannel,
  type ChannelAsk,
  type ChannelAnswer,
  type HostChannelOptions,
} from "./hostChannel.js";
export { GUEST_CHANNEL_LIMITS } from "./channelLimits.js";
export {
  PERMISSION_SERVER,
  PERMISSION_TOOL,
  PERMISSION_SOCKET_FLAG,
  permissionPromptTool,
  permissionToolPath,
  type PermissionPromptPlan,
} from "./permissionPrompt.js";
export { readShare, type Share } from "./readShare.js";
export {
  GIT_STEP_DEADLINE_MS,
  DEFAULT_IDENTITY,
  LEFTOVERS_MESSAGE,
  prepareSteps,
  gitArgv,
  gitEnvironment,
  type GitStep,
  type Identity,
} from "./gitSteps.js";
export {
  startMetadataServer,
  publicSettings,
  METADATA_PATHS,
  type MetadataServer,
} from "./metadataServer.js";
export { agentEnvironment, RUN_MARKER_VAR, INHERITED_VARS } from "./agentEnvironment.js";
