// The few things every folder needs that the language and Node leave out. This folder is the
// bottom floor: every folder may import it, and it imports nothing of warden's.
export {
  codeCachePath,
  loadPhaseName,
  runCachedBundle,
  WRITE_CODE_CACHE_ENV,
} from "./cachedBundle.js";
export { startDeadline, type Deadline } from "./deadline.js";
export { definedFields } from "./definedFields.js";
export { errorMessage } from "./errorMessage.js";
export { exitCodeOf, exitText } from "./exitStatus.js";
export { memo } from "./memo.js";
export { randomHex } from "./randomHex.js";
export { RecentMap } from "./recentMap.js";
export { settled, unwrap, type Settled } from "./settled.js";
export { within } from "./within.js";
export { clockText, durationText, isoTime, localizeLineTime, timeText } from "./timeText.js";
export {
  NO_TRACE,
  phaseTrace,
  TRACE_ENV,
  TRACE_LINE,
  traceFromEnv,
  traceNow,
  type EndPhase,
  type PhaseTrace,
  type TracedPhase,
} from "./phaseTrace.js";
