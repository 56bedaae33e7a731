// The `gemini` agent: Gemini CLI, run headless with `--output-format=stream-json`, one run per
// message: the prompt first, then each further message by resuming the session (see
// docs/agents-codex-gemini.md).
export {
  GEMINI_PROGRAM,
  GEMINI_SETTINGS_FILE,
  SESSION_ID as GEMINI_SESSION_ID,
  geminiLaunch,
  geminiSettings,
  type GeminiTask,
} from "./geminiLaunch.js";
export { GeminiLedger, type GeminiTokens } from "./geminiLedger.js";
export {
  GEMINI_TURN_LIMIT_ERROR,
  GeminiStreamReader,
  geminiResultEvent,
  geminiStreamReader,
} from "./geminiStream.js";
export { geminiExit, type GeminiExit, type GeminiExitKind } from "./geminiExitCodes.js";
export {
  geminiOutcome,
  madeUpGeminiResult,
  type GeminiOutcome,
  type GeminiRunExit,
} from "./geminiOutcome.js";
export { GEMINI_LIMITS } from "./geminiLimits.js";
export { GeminiRetryReader } from "./geminiRetries.js";
