// The tree policies of DESIGN.md, as pure functions of two lineages. Cancel is downward only;
// a wait may go to a descendant or an independent root, never to itself, an ancestor or a peer.
import type { ApproveRefusal, CancelRefusal, WaitRefusal } from "./errors.js";

/** A task's place in its tree: its id and its ancestors, root first. */
export interface Lineage {
  id: string;
  ancestors: readonly string[];
}

export function rootOf(task: Lineage): string {
  return task.ancestors[0] ?? task.id;
}

export type CancelDecision =
  | { allowed: true; edge: "outside" | "self" | "descendant" }
  | { allowed: false; edge: CancelRefusal };

/** Whether `by` (undefined: outside any task) may cancel `target`. */
export function cancelDecision(by: Lineage | undefined, target: Lineage): CancelDecision {
  if (by === undefined) return { allowed: true, edge: "outside" };
  if (by.id === target.id) return { allowed: true, edge: "self" };
  if (target.ancestors.includes(by.id)) return { allowed: true, edge: "descendant" };
  if (by.ancestors.includes(target.id)) return { allowed: false, edge: "ancestor" };
  if (rootOf(by) === rootOf(target)) return { allowed: false, edge: "peer" };
  return { allowed: false, edge: "other_tree" };
}

export type WaitDecision =
  | { allowed: true; edge: "outside" | "descendant" | "independent_root" }
  | { allowed: false; edge: WaitRefusal };

/** Whether `by` (undefined: outside any task) may wait on `target`. */
export function waitDecision(by: Lineage | undefined, target: Lineage): WaitDecision {
  if (by === undefined) return { allowed: true, edge: "outside" };
  if (by.id === target.id) return { allowed: false, edge: "self" };
  if (target.ancestors.includes(by.id)) return { allowed: true, edge: "descendant" };
  if (by.ancestors.includes(target.id)) return { allowed: false, edge: "ancestor" };
  if (rootOf(by) === rootOf(target)) return { allowed: false, edge: "peer" };
  if (target.ancestors.length > 0) return { allowed: false, edge: "not_a_root" };
  return { allowed: true, edge: "independent_root" };
}

/**
 * Whether adding the edge `from → to` to a graph of tree-to-tree waits closes a cycle: true when
 * `to` already reaches `from`. Trees, not tasks, are the nodes, because a parent always waits for
 * its children before it ends.
 */
export function closesCycle(
  edges: ReadonlyArray<readonly [string, string]>,
  from: string,
  to: string,
): boolean {
  if (from === to) return true;
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const seen = new Set<string>();
  const stack = [to];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === undefined) break;
    if (node === from) return true;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...(next.get(node) ?? []));
  }
  return false;
}

export type ApproveDecision =
  { allowed: true; edge: "outside" | "descendant" } | { allowed: false; edge: ApproveRefusal };

/**
 * Whether `by` (undefined: outside any task) may answer `target`'s permission prompts: a person
 * outside any task, or a task above it, never the task itself (an agent approving its own tool
 * calls would make the prompt pointless) nor one beside or below it.
 */
export function approveDecision(by: Lineage | undefined, target: Lineage): ApproveDecision {
  if (by === undefined) return { allowed: true, edge: "outside" };
  if (by.id === target.id) return { allowed: false, edge: "self" };
  if (target.ancestors.includes(by.id)) return { allowed: true, edge: "descendant" };
  if (by.ancestors.includes(target.id)) return { allowed: false, edge: "ancestor" };
  if (rootOf(by) === rootOf(target)) return { allowed: false, edge: "peer" };
  return { allowed: false, edge: "other_tree" };
}
