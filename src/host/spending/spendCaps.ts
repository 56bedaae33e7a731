// Whether a task may send one more request, from what it, its tree and its data directory have
// spent. Pure: the spend is read elsewhere. A cap is reached once the spend is at or past it, so
// the most a cap is passed by is the requests already in flight when it was reached.
import type { SpendRefusal } from "../../egress/index.js";
import { dollars } from "../dollars.js";
import { SPEND_LIMITS } from "./limits.js";

/** Which cap a refusal is for. */
export type CapKind = "task" | "tree" | "daily";

export interface BudgetRefusal extends SpendRefusal {
  readonly cap: CapKind;
  /** The task whose cap it is, for a task's or a tree's. */
  readonly task?: string;
  readonly capUSD: number;
  readonly spentUSD: number;
}

export interface CapFacts {
  /** The running task. */
  readonly self: string;
  /** The caps of the task and of its ancestors, with what each one's subtree has spent. */
  readonly trees: readonly { id: string; capUSD: number; spentUSD: number }[];
  readonly ownUSD: number;
  /** The data directory's daily cap and what its tasks have spent this UTC day. */
  readonly daily?: { capUSD: number; spentUSD: number };
}

function treeMessage(self: string, id: string, ownUSD: number, spentUSD: number, cap: number) {
  const budget = `budget of ${dollars(cap)}`;
  if (id !== self) {
    return `task ${id} and the tasks under it have spent ${dollars(spentUSD)}, its ${budget}`;
  }
  return spentUSD > ownUSD
    ? `the task and the tasks under it have spent ${dollars(spentUSD)}, its ${budget}`
    : `the task has spent ${dollars(spentUSD)}, its ${budget}`;
}

function reached(spentUSD: number, capUSD: number): boolean {
  return spentUSD >= capUSD - SPEND_LIMITS.capToleranceUSD;
}

/** The first cap reached, the widest first (the daily one, then the root's), or undefined. */
export function capRefusal(facts: CapFacts): BudgetRefusal | undefined {
  const { daily } = facts;
  if (daily !== undefined && reached(daily.spentUSD, daily.capUSD)) {
    return {
      cap: "daily",
      capUSD: daily.capUSD,
      spentUSD: daily.spentUSD,
      message:
        `the tasks of this data directory have spent ${dollars(daily.spentUSD)} today (UTC), ` +
        `the daily budget of ${dollars(daily.capUSD)} (dailyBudgetUSD in the config file)`,
    };
  }
  for (const { id, capUSD, spentUSD } of facts.trees) {
    if (!reached(spentUSD, capUSD)) continue;
    return {
      cap: id === facts.self && spentUSD <= facts.ownUSD ? "task" : "tree",
      task: id,
      capUSD,
      spentUSD,
      message: treeMessage(facts.self, id, facts.ownUSD, spentUSD, capUSD),
    };
  }
  return undefined;
}
