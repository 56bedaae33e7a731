// warden/protocol: the contract between the host and the sandbox. Imports nothing of warden's.
export { LIMITS, RESULT_LIMITS, MCP_LIMITS } from "./limits.js";
export {
  SHARE_FILES,
  RESULT_FILES,
  RESULT_FILE_NAMES,
  TASK_BRANCH,
  TASK_BRANCH_SHORT,
  TASK_ID,
  MAX_HOP,
  ENV,
  GUEST_SOCKETS_ENV,
  EGRESS_SOCKETS,
  GUEST_PORTS,
  MESSAGE_FILE_NAME,
  MESSAGE_FILES_DIR,
  type ResultFileName,
} from "./names.js";
export {
  WardenError,
  BadSettingsError,
  BadResultsError,
  BadBundleError,
  BadShareError,
  UsageError,
  GitError,
  type ExitClass,
  type WardenErrorOptions,
} from "./errors.js";
export { cleanText, cleanLine, indent, cutText } from "./clean.js";
export {
  messageFilesNote,
  filesRefusedNote,
  REPLY_FILE_LINE,
  REPLY_FILES_NOTE,
} from "./messageNotes.js";
export { firstIssue } from "./schemaIssue.js";
export { miniSchema } from "./miniSchema.js";
export {
  MAX_COMMAND_ARGS,
  MAX_COMMAND_ARG_BYTES,
  MAX_AGENT_ENV,
  MAX_AGENT_ENV_VALUE_BYTES,
  settingsSchema,
  gitNameSchema,
  gitEmailSchema,
  checkSettings,
  parseSettings,
  type Settings,
} from "./settings.js";
// Apart from settings.ts, so that naming an agent does not load the settings' schema.
export {
  AGENTS,
  AGENT_PROFILES,
  agentTakes,
  type AgentApi,
  type AgentField,
  type AgentName,
  type AgentProfile,
} from "./agentProfiles.js";
export { OID, resultSchema, parseResult, formatResult, type Result } from "./result.js";
export {
  readBundleHeader,
  readBundleHeaderFile,
  MAX_BUNDLE_HEADER_BYTES,
  type BundleHeader,
} from "./bundleHeader.js";
export { checkBundle } from "./checkBundle.js";
export {
  formatHistoryInput,
  historyRef,
  parseHistoryInput,
  type HistoryInput,
} from "./historyInput.js";
export { writeResults, type ResultsFile } from "./writeResults.js";
export {
  receiveResults,
  type ReceivedFile,
  type ReceivedResults,
  type ReceiveOptions,
} from "./receiveResults.js";
export { Log, LogWriter, type LogOptions } from "./log.js";
export { egressEnvironment, type EgressPortsInUse } from "./egressEnvironment.js";
export { joinSockets } from "./joinSockets.js";
export { tunnelReads, type TunnelReads } from "./tunnelReads.js";
export {
  CHANNEL_VERSION,
  CHANNEL_SOCKET,
  CHANNEL_LIMITS,
  CHANNEL_ERRORS,
  parseChannelRequest,
  parseChannelResponse,
  channelLine,
  type ChannelRequest,
  type ChannelResponse,
  type ChannelMessage,
  type ChannelOp,
  type ChannelErrorCode,
} from "./channel.js";
export { SETUP_LIMITS } from "./limits.js";
export {
  DEFAULT_SETUP_TIMEOUT_SECONDS,
  setupSettingsSchema,
  type SetupSettings,
} from "./setupSettings.js";
export {
  BadSnapshotError,
  checkSnapshotPath,
  readSnapshot,
  snapshotEntry,
  SNAPSHOT_DELETIONS,
  SNAPSHOT_FILES_PREFIX,
  type ReadSnapshotOptions,
  type SnapshotBody,
  type SnapshotEntry,
  type SnapshotSummary,
} from "./setupSnapshot.js";
export { MAIN_WORKSPACE, WORKSPACE_NAME, workspaceNameProblem } from "./workspaceName.js";
export {
  WORKSPACE_BUNDLE,
  workspaceBundleName,
  formatWorkspacesInput,
  parseWorkspacesInput,
  type WorkspacesInput,
  type WorkspaceInput,
} from "./workspaces.js";
export {
  MCP_SERVER_NAME,
  RESERVED_MCP_SERVER_NAMES,
  SHARE_SKILLS_DIR,
  SKILL_FILE,
  SKILL_NAME,
  mcpServersSchema,
  mcpServerKind,
  remoteUrl,
  skillNamesSchema,
  type McpEndpoint,
  type McpRemoteServer,
  type McpServer,
  type McpServers,
  type McpStdioServer,
} from "./mcpServers.js";
export { INSIDE_LIMITS } from "./limits.js";
export {
  INSIDE_VERSION,
  INSIDE_SOCKET,
  FRAME,
  TO_GUEST_KINDS,
  FROM_GUEST_KINDS,
  FrameReader,
  frameBytes,
  jsonFrame,
  insideOpenSchema,
  insideResizeSchema,
  insideExitSchema,
  insideErrorSchema,
  insidePathProblem,
  parseFrameJson,
  type FrameKind,
  type InsideOpen,
  type InsideKind,
  type InsideExit,
} from "./inside.js";
export { FrameConnection, type FrameHandler } from "./frameConnection.js";
export {
  CHECKPOINT_LIMITS,
  CHECKPOINT_SHARE_FILES,
  CHECKPOINT_PARTS,
  CHECKPOINT_WIP_MESSAGE,
  INTERRUPTED_NOTE,
  SUSPENDED_NOTE,
  RESUME_REASONS,
  SESSION_ID,
  checkSessionFile,
  resumeSettingsSchema,
  type CheckpointPart,
  type ResumeReason,
  type ResumeSettings,
} from "./checkpoint.js";
