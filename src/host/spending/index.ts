// The host's spending caps: a task's, its tree's and its data directory's daily one, enforced
// through the relay's spend gate, with each task's spend recorded in its directory and the
// day's in the data directory's ledger.
export {
  TaskSpending,
  USAGE_EVENT_TYPE,
  BUDGET_EVENT_TYPE,
  type SpendingOptions,
} from "./taskSpending.js";
export type { BudgetRefusal, CapKind } from "./spendCaps.js";
export { readSpendRecord, recordedSpend, type RecordRead } from "./spendRecord.js";
export { NO_SPEND, type SpendTotals } from "./spendTotals.js";
export { SPEND_DIR } from "./spendLedger.js";
