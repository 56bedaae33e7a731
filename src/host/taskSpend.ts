// What the relay metered for a task, as lists and `show` read it: the record in its directory
// while it runs, the same totals in its terminal record once it has ended.
import type { SpendTotals } from "./spending/index.js";
import { recordedSpend } from "./spending/index.js";
import { taskLayout } from "./taskLayout.js";

export type { SpendTotals } from "./spending/index.js";
export { BUDGET_EVENT_TYPE, USAGE_EVENT_TYPE } from "./spending/index.js";

/** The task's spend so far, or undefined when the relay metered none (or its record is damaged). */
export async function taskSpend(dataDir: string, id: string): Promise<SpendTotals | undefined> {
  return recordedSpend(taskLayout(dataDir, id).spend);
}
