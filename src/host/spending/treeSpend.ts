// What a tree of tasks has spent: each task's cap covers its own spend and all its descendants'.
// The caps are read once from the specs (immutable); the spend is read again at each refresh from
// the spend records of the tree, found through each task's children/ index.
import { constants } from "node:fs";
import { open, readdir } from "node:fs/promises";
import { TASK_ID } from "../../protocol/index.js";
import { NO_FOLLOW, TaskPaths } from "../../store/index.js";
import { taskLayout } from "../taskLayout.js";
import { SPEND_LIMITS } from "./limits.js";
import { readSpendRecordSync } from "./spendRecord.js";

/** One task of the chain whose cap covers the running task: itself or an ancestor. */
export interface TreeCap {
  readonly id: string;
  readonly capUSD: number;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/**
 * A task's cap as its spec holds it (settings.guest.maxBudgetUSD), or undefined when it has none
 * (0 means none, as for the agent's own flag). The spec is read without the store's full check:
 * only this one field is wanted, and anything else is no cap.
 */
export async function readCap(dataDir: string, id: string): Promise<number | undefined> {
  let text: string;
  try {
    const handle = await open(new TaskPaths(dataDir, id).spec, constants.O_RDONLY | NO_FOLLOW);
    try {
      const { size } = await handle.stat();
      if (size > SPEND_LIMITS.specBytes) return undefined;
      text = await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch {
    return undefined;
  }
  const cap = field(field(field(spec, "settings"), "guest"), "maxBudgetUSD");
  return typeof cap === "number" && Number.isFinite(cap) && cap > 0 ? cap : undefined;
}

/** The caps of `chain` (ancestors root first, then the task), those that have one. */
export async function readTreeCaps(dataDir: string, chain: readonly string[]): Promise<TreeCap[]> {
  const caps = await Promise.all(chain.map((id) => readCap(dataDir, id)));
  return chain.flatMap((id, i) => {
    const capUSD = caps[i];
    return capUSD === undefined ? [] : [{ id, capUSD }];
  });
}

async function childrenOf(dataDir: string, id: string): Promise<string[]> {
  try {
    const names = await readdir(new TaskPaths(dataDir, id).children);
    return names.filter((name) => TASK_ID.test(name));
  } catch {
    return [];
  }
}

/** One task of the tree: its parent within the tree (undefined for the top). */
interface Member {
  readonly id: string;
  readonly parent: string | undefined;
}

/**
 * A tree's spend. Its shape (who is under whom) is learnt in the background, from each task's
 * children/ index; its spend is read synchronously, when the relay asks whether a request may
 * go, so that a sibling's spend written a moment ago counts: one small file per task, in the
 * page cache, and SPEND_LIMITS.treeTasks bounds them. The spend it last read of each task is
 * kept, and a later read that is lower, damaged or gone counts as that: a record never lowers
 * what its tree has spent.
 */
export class TreeSpend {
  readonly #seen = new Map<string, number>();
  /** Parents before their children. */
  #members: readonly Member[] = [];
  #cut = false;

  constructor(
    private readonly dataDir: string,
    /** The running task, whose spend the gate knows better than its record. */
    private readonly self: string,
    /** The highest task whose cap covers the running one; undefined when none has a cap. */
    private readonly top: string | undefined,
  ) {}

  /** Whether the tree has more tasks than SPEND_LIMITS.treeTasks; the rest are not counted. */
  get cut(): boolean {
    return this.#cut;
  }

  /** Walks the children/ indexes down from the top. */
  async learnShape(): Promise<void> {
    if (this.top === undefined) return;
    const members: Member[] = [{ id: this.top, parent: undefined }];
    let cut = false;
    for (let i = 0; i < members.length; i++) {
      const { id } = members[i] as Member;
      for (const child of await childrenOf(this.dataDir, id)) {
        if (members.length >= SPEND_LIMITS.treeTasks) {
          cut = true;
          break;
        }
        members.push({ id: child, parent: id });
      }
    }
    this.#members = members;
    this.#cut = cut;
  }

  #costOf(id: string): number {
    const read = readSpendRecordSync(taskLayout(this.dataDir, id).spend);
    const seen = this.#seen.get(id) ?? 0;
    const cost = read.kind === "read" ? Math.max(seen, read.totals.costUSD) : seen;
    this.#seen.set(id, cost);
    return cost;
  }

  /**
   * The spend of the subtree of each task of the tree as its shape was last learnt, with the
   * running task's own spend taken as `selfUSD`.
   */
  read(selfUSD: number): Map<string, number> {
    const sums = new Map<string, number>();
    for (const { id } of this.#members) {
      sums.set(id, id === this.self ? selfUSD : this.#costOf(id));
    }
    // Members are listed parents first, so walking backwards adds each subtree to its parent
    // once the subtree is whole.
    for (let i = this.#members.length - 1; i > 0; i--) {
      const { id, parent } = this.#members[i] as Member;
      if (parent === undefined) continue;
      sums.set(parent, (sums.get(parent) ?? 0) + (sums.get(id) ?? 0));
    }
    return sums;
  }
}
