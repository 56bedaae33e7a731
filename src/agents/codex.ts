// The `codex` agent: Codex CLI, run as `codex exec --json`, one run per message: the prompt
// first, then each further message by resuming the session (see docs/agents-codex-gemini.md).
export {
  CODEX_KEY_VARIABLE,
  CODEX_PROGRAM,
  CODEX_PROVIDER,
  SESSION_ID as CODEX_SESSION_ID,
  codexLaunch,
  type CodexTask,
} from "./codexLaunch.js";
export { CodexLedger, type CodexTokens } from "./codexLedger.js";
export { CodexStreamReader, codexStreamReader } from "./codexStream.js";
export {
  codexOutcome,
  madeUpCodexResult,
  type CodexExit,
  type CodexOutcome,
} from "./codexOutcome.js";
export { CODEX_LIMITS } from "./codexLimits.js";
