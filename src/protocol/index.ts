// warden/protocol: the contract between the host and the sandbox. Imports nothing of warden's.
export { LIMITS, RESULT_LIMITS } from "./limits.js";
export {
  SHARE_FILES,
  RESULT_FILES,
  RESULT_FILE_NAMES,
  TASK_BRANCH,
  TASK_BRANCH_SHORT,
  TASK_ID,
  MAX_HOP,
  ENV,
  type ResultFileName,
} from "./names.js";
export {
  WardenError,
  BadSettingsError,
  BadResultsError,
  BadBundleError,
  BadShareError,
  type WardenErrorOptions,
} from "./errors.js";
export { cleanText, cleanLine, indent, cutText } from "./clean.js";
export {
  AGENTS,
  MAX_COMMAND_ARGS,
  MAX_COMMAND_ARG_BYTES,
  settingsSchema,
  checkSettings,
  parseSettings,
  type AgentName,
  type Settings,
} from "./settings.js";
export { OID, resultSchema, parseResult, formatResult, type Result } from "./result.js";
