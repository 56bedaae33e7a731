// The few things every folder needs that the language and Node leave out. This folder is the
// bottom floor: every folder may import it, and it imports nothing of warden's.
export { definedFields } from "./definedFields.js";
export { errorMessage } from "./errorMessage.js";
export { exitCodeOf, exitText } from "./exitStatus.js";
export { RecentMap } from "./recentMap.js";
export { within } from "./within.js";
export { clockText, durationText, isoTime, localizeLineTime, timeText } from "./timeText.js";
